/**
 * Reads a prompt directory from disk into the loader's FileSource (Node only).
 */
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Issue } from '../src/catalog/types.js';
import { isPromptFile, NOT_UTF8, utf8Text, type FileSource } from './files.js';
import { loadPromptFiles, type LoadResult } from './load.js';
import { CliError } from './api.js';

/**
 * Prompt files: everything but dotfiles, node_modules and skill folders (a folder with a SKILL.md:
 * skills.ts). Symlinks are followed, each folder read once (a link back up would loop forever); a
 * link to nothing is an error naming it rather than a bare ENOENT.
 */
function walk(dir: string, out: string[], root = dir, seen = new Set<string>()): void {
  const real = realpathSync(dir);
  if (seen.has(real)) return;
  seen.add(real);
  const names = readdirSync(dir);
  if (dir !== root && names.includes('SKILL.md')) return;
  for (const name of names) {
    if (name.startsWith('.') || name === 'node_modules') continue;
    const full = join(dir, name);
    let isDir: boolean;
    try {
      isDir = statSync(full).isDirectory();
    } catch (e) {
      throw new CliError(
        `${full}: cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)}; a symlink to nothing?)`,
      );
    }
    if (isDir) walk(full, out, root, seen);
    else out.push(full);
  }
}

/** The prompt files of `dir`; one that is not UTF-8 text is left out, and added to `issues` with its line. */
export function dirSource(dir: string, issues: Issue[]): FileSource {
  const paths: string[] = [];
  walk(dir, paths);
  const files = new Map<string, string>();
  for (const p of paths) {
    const rel = relative(dir, p).split('\\').join('/');
    if (!isPromptFile(rel)) continue;
    const text = utf8Text(readFileSync(p));
    if (typeof text === 'string') files.set(rel, text);
    else issues.push({ path: `${rel}:${text.line}`, message: NOT_UTF8 });
  }
  return {
    files,
    readAsset(path) {
      try {
        return new Uint8Array(readFileSync(join(dir, path)));
      } catch {
        return undefined;
      }
    },
  };
}

export function loadPromptDir(dir: string): LoadResult {
  const unreadable: Issue[] = [];
  const result = loadPromptFiles(dirSource(dir, unreadable));
  return { ...result, issues: [...unreadable, ...result.issues] };
}

/** Loads a directory, or throws one readable error listing every problem (file:line: field: message). */
export function loadValidDir(dir: string): LoadResult {
  const result = loadPromptDir(dir);
  if (result.issues.length) {
    throw new CliError(
      `${result.issues.length} problem(s) in ${dir}/, nothing published:\n${result.issues.map((i) => `  ${dir}/${i.path}: ${i.message}`).join('\n')}`,
    );
  }
  return result;
}
