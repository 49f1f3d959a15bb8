/**
 * Prompt files → validated prompt records: the one loader, which the CLI,
 * `npm start`'s seeding and the tests all go through. Each file is parsed
 * (files.ts) and validated as the Worker validates a publish; issues name the
 * file, the line and the field.
 */
import type { Issue, PromptRecord } from '../src/catalog/types.js';
import { validatePrompt } from '../src/catalog/validate.js';
import { FileError } from './file-text.js';
import { isPromptFile, parsePromptFile, type FileSource, type Locate } from './files.js';

export interface LoadResult {
  records: PromptRecord[];
  issues: Issue[];
  /** Which file each loaded prompt came from: name → path. */
  sources: Map<string, string>;
}

/** Loads and validates every prompt file; issues are prefixed with the file path. */
export function loadPromptFiles(src: FileSource): LoadResult {
  const records: PromptRecord[] = [];
  const issues: Issue[] = [];
  const owner = new Map<string, string>();
  // A file some prompt reads as its content (`file: assets/openapi.json`) is that prompt's asset, not a prompt.
  const assets = new Map<string, string>();
  const parsed = [...src.files]
    .filter(([path]) => isPromptFile(path))
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([path, text]): { path: string } & ({ record: unknown; locate: Locate } | { error: string; at: string }) => {
      const reading: FileSource = { files: src.files, readAsset: (a) => (assets.set(a, path), src.readAsset(a)) };
      try {
        return { path, ...parsePromptFile(path, text, reading) };
      } catch (e) {
        const line = e instanceof FileError ? e.line : undefined;
        return { path, at: line ? `${path}:${line}` : path, error: e instanceof Error ? e.message : String(e) };
      }
    });
  for (const p of parsed) {
    const { path } = p;
    const readBy = assets.get(path);
    if (readBy !== undefined) {
      // Unless it is a whole prompt itself: then which one is meant is the author's to say, not ours to guess.
      if ('record' in p && validatePrompt(p.record).length === 0)
        issues.push({ path, message: `is a prompt, and also the content of ${readBy} (file:): move one of them` });
      continue;
    }
    if ('error' in p) {
      issues.push({ path: p.at, message: p.error });
      continue;
    }
    const { record, locate } = p;
    const own = validatePrompt(record);
    for (const i of own) {
      const line = locate(i.path);
      issues.push({ path: `${path}${line ? `:${line}` : ''}: ${i.path}`, message: i.message });
    }
    if (own.length) continue;
    const r = record as PromptRecord;
    const prev = owner.get(r.name);
    const line = locate('name');
    if (prev)
      issues.push({
        path: `${path}${line ? `:${line}` : ''}: name`,
        message: `duplicate prompt name "${r.name}" (also in ${prev})`,
      });
    else {
      owner.set(r.name, path);
      records.push(r);
    }
  }
  return { records, issues, sources: owner };
}
