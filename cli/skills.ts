/**
 * Skill folders → skill records and their files (Node side; docs/skills.md). Any folder of the
 * prompts directory that holds a `SKILL.md` is a skill, and everything under it is its files
 * (never prompts). Digests are SHA-256 of the raw bytes, the form SEP-2640 manifests carry;
 * records are validated with the Worker's own rules before anything is uploaded.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import type { Issue, SkillFileRecord, SkillRecord } from '../src/catalog/types.js';
import { mimeTypeOf } from '../src/catalog/skills/mime.js';
import {
  fileTooLarge,
  MAX_SKILL_FILE_BYTES,
  normalizeSkill,
  skillSetLimits,
  validateSkill,
} from '../src/catalog/skills/validate.js';
import { readAtMost } from './fs-source.js';
import { frontMatter, readSidecar, SIDECAR, textOf } from './skill-texts.js';

export interface SkillFiles {
  records: SkillRecord[];
  /** Every file's bytes, by digest: what an upload sends. */
  bytes: Map<string, Uint8Array>;
  /** Which folder each skill came from (relative to the directory): name → path. */
  sources: Map<string, string>;
  issues: Issue[];
}

/** A file's `sha256:<hex>` digest, as skill records and `pull`'s record name files. */
export const sha256 = (bytes: Uint8Array): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

const skipped = (name: string) => name.startsWith('.') || name === 'node_modules';

/** Whether a folder reached through a symlink holds a SKILL.md, at any depth (links followed, once each). */
function holdsSkills(path: string, seen = new Set<string>()): boolean {
  let real: string;
  try {
    real = realpathSync(path);
    if (seen.has(real) || !statSync(real).isDirectory()) return false;
  } catch (e) {
    // A link to nothing (or to what cannot be read) holds no skill; anything else is a bug to see.
    if (typeof (e as { code?: unknown }).code === 'string') return false;
    throw e;
  }
  seen.add(real);
  const names = readdirSync(real);
  return names.includes('SKILL.md') || names.some((n) => !skipped(n) && holdsSkills(join(real, n), seen));
}

/**
 * Folders under `dir` that hold a SKILL.md (not looking inside a skill for more). A symlink is not
 * followed (it could publish files from outside the repository), but one to a folder holding
 * skills is an issue: skipped quietly, `push --prune` would delete those skills at the gateway.
 */
export function skillFolders(dir: string, issues: Issue[]): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    const names = readdirSync(at);
    if (at !== dir && names.includes('SKILL.md')) return void found.push(at);
    for (const n of names) {
      if (skipped(n)) continue;
      const full = join(at, n);
      const st = lstatSync(full);
      if (st.isDirectory()) walk(full);
      else if (st.isSymbolicLink() && holdsSkills(full))
        issues.push({
          path: relative(dir, full).split('\\').join('/'),
          message: 'a symlink to a folder that holds skills: symlinks are not published (put the folder itself here)',
        });
    }
  };
  walk(dir);
  return found.sort();
}

/** Every regular file of a skill folder; dotfiles skipped, a symlink refused (it could point anywhere). */
function filesOf(root: string, issues: Issue[], label: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const n of readdirSync(at).sort()) {
      if (n.startsWith('.')) continue;
      const full = join(at, n);
      const st = lstatSync(full);
      if (st.isSymbolicLink())
        issues.push({ path: `${label}/${relative(root, full)}`, message: 'symlinks are not published' });
      else if (st.isDirectory()) walk(full);
      else if (st.isFile()) out.push(full);
    }
  };
  walk(root);
  return out;
}

/**
 * A skill folder's file records, each file's bytes into `bytes` by digest. A file over the per-file
 * cap is an issue, named where the validator would name it, and is never read (nor in the record,
 * which is refused anyway); the paths of all of them, listed or not, come back too.
 */
function readFiles(
  folder: string,
  label: string,
  mimeTypes: Record<string, string>,
  issues: Issue[],
  bytes: Map<string, Uint8Array>,
) {
  const files: SkillFileRecord[] = [];
  const paths = new Set<string>();
  for (const full of filesOf(folder, issues, label)) {
    const path = relative(folder, full).split('\\').join('/');
    paths.add(path);
    const read = readAtMost(full, MAX_SKILL_FILE_BYTES);
    if (typeof read === 'number') {
      const message = fileTooLarge(basename(folder), path, read);
      issues.push({ path: `${label}: files[${files.length}].size`, message });
      continue;
    }
    const digest = sha256(read);
    bytes.set(digest, read);
    const mimeType = Object.hasOwn(mimeTypes, path) ? mimeTypes[path]! : mimeTypeOf(path);
    files.push({ path, digest, size: read.byteLength, mimeType });
  }
  return { files, paths };
}

export function loadSkills(dir: string): SkillFiles {
  const result: SkillFiles = { records: [], bytes: new Map(), sources: new Map(), issues: [] };
  for (const folder of skillFolders(dir, result.issues)) {
    const label = relative(dir, folder).split('\\').join('/');
    const issues: Issue[] = [];
    const { groups, mimeTypes = {} } = readSidecar(folder, label, issues);
    const { files, paths } = readFiles(folder, label, mimeTypes, issues, result.bytes);
    for (const path of Object.keys(mimeTypes))
      if (!paths.has(path))
        issues.push({ path: `${label}/${SIDECAR}: mimeTypes: ${path}`, message: 'no such file in the skill' });
    // A SKILL.md over the cap is already an issue (and left unread).
    const listed = files.some((f) => f.path === 'SKILL.md') || !paths.has('SKILL.md');
    const text = listed
      ? textOf(join(folder, 'SKILL.md'), `${label}/SKILL.md`, issues, MAX_SKILL_FILE_BYTES)
      : undefined;
    const fm = text === undefined ? {} : frontMatter(text);
    if (fm.problem) issues.push({ path: `${label}/SKILL.md`, message: fm.problem });
    const record: SkillRecord = { name: basename(folder), frontmatter: fm.value ?? {}, files };
    if (groups !== undefined) record.groups = groups as string[];
    if (fm.value)
      for (const i of validateSkill(record)) issues.push({ path: `${label}: ${i.path}`, message: i.message });
    const prev = result.sources.get(record.name);
    if (prev) issues.push({ path: label, message: `duplicate skill "${record.name}" (also in ${prev})` });
    result.issues.push(...issues);
    if (issues.length === 0) {
      result.records.push(normalizeSkill(record));
      result.sources.set(record.name, label);
    }
  }
  // What bounds one publish (push sends every skill in one): found here, not in a request the user never wrote.
  for (const i of skillSetLimits(result.records)) result.issues.push({ path: '', message: i.message });
  return result;
}
