/**
 * Reads a prompt directory from disk into the loader's FileSource (Node only).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isPromptFile, loadPromptFiles, type FileSource, type LoadResult } from './files.js';
import { CliError } from './api.js';

/** Prompt files: everything but dotfiles, node_modules and skill folders (a folder with a SKILL.md: skills.ts). */
function walk(dir: string, out: string[], root = dir): void {
  const names = readdirSync(dir);
  if (dir !== root && names.includes('SKILL.md')) return;
  for (const name of names) {
    if (name.startsWith('.') || name === 'node_modules') continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out, root);
    else out.push(full);
  }
}

export function dirSource(dir: string): FileSource {
  const paths: string[] = [];
  walk(dir, paths);
  const files = new Map<string, string>();
  for (const p of paths) {
    const rel = relative(dir, p).split('\\').join('/');
    if (isPromptFile(rel)) files.set(rel, readFileSync(p, 'utf8'));
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
  return loadPromptFiles(dirSource(dir));
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
