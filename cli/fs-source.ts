/**
 * Reads a prompt directory from disk into the loader's FileSource (Node only).
 */
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Issue } from '../src/catalog/types.js';
import { MAX_PROMPT_BYTES } from '../src/catalog/validate.js';
import { FileError } from './file-text.js';
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

/**
 * A file's bytes, or its size when that is over `max`: the size is looked at first, so a file larger
 * than any record it could become (or than the 2 GiB Node reads at once) is never read.
 */
export function readAtMost(path: string, max: number): Uint8Array | number {
  const { size } = statSync(path);
  return size > max ? size : new Uint8Array(readFileSync(path));
}

/** Why a prompt file or asset is not read: whatever it holds, its record would be over the limit. */
const promptFileTooLarge = (size: number) =>
  `is ${size} bytes; a prompt file or one it reads is at most ${MAX_PROMPT_BYTES} bytes, the most a prompt record may be`;

/**
 * The prompt files of `dir`; one that is not UTF-8 text, or is too large to be a prompt, is left
 * out and added to `issues` (with its line, or its size).
 */
export function dirSource(dir: string, issues: Issue[]): FileSource {
  const paths: string[] = [];
  walk(dir, paths);
  const files = new Map<string, string>();
  for (const p of paths) {
    const rel = relative(dir, p).split('\\').join('/');
    if (!isPromptFile(rel)) continue;
    const bytes = readAtMost(p, MAX_PROMPT_BYTES);
    if (typeof bytes === 'number') {
      issues.push({ path: rel, message: promptFileTooLarge(bytes) });
      continue;
    }
    const text = utf8Text(bytes);
    if (typeof text === 'string') files.set(rel, text);
    else issues.push({ path: `${rel}:${text.line}`, message: NOT_UTF8 });
  }
  return {
    files,
    readAsset(path) {
      let bytes: Uint8Array | number;
      try {
        bytes = readAtMost(join(dir, path), MAX_PROMPT_BYTES);
      } catch {
        return undefined;
      }
      // Thrown, not undefined: "cannot read" would hide what is wrong with it (load.ts names the prompt).
      if (typeof bytes === 'number') throw new FileError(`${path} ${promptFileTooLarge(bytes)}`);
      return bytes;
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
