/**
 * Skill folders → skill records and their files (Node side; docs/skills.md). Any folder of the
 * prompts directory that holds a `SKILL.md` is a skill, and everything under it is its files
 * (never prompts). Digests are SHA-256 of the raw bytes, the form SEP-2640 manifests carry;
 * records are validated with the Worker's own rules before anything is uploaded.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { parseDocument } from 'yaml';
import type { Issue, SkillFileRecord, SkillRecord } from '../src/catalog/types.js';
import { mimeTypeOf } from '../src/catalog/skills/mime.js';
import { normalizeSkill, validateSkill } from '../src/catalog/skills/validate.js';
import { NOT_UTF8, utf8Text } from './files.js';

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

/** The SKILL.md front matter as JSON, or a problem with its line. */
function frontMatter(text: string): { value?: Record<string, unknown>; problem?: string } {
  const m = /^(?:\uFEFF)?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!m) return { problem: 'SKILL.md needs YAML front matter (a block between --- lines at the top)' };
  const doc = parseDocument(m[1]!);
  if (doc.errors.length) return { problem: `front matter: ${doc.errors[0]!.message.split('\n')[0]}` };
  const value = doc.toJS() as unknown;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { problem: 'front matter must be a mapping' };
  return { value: value as Record<string, unknown> };
}

/**
 * What the gateway keeps of a skill beyond its files, in the folder's `.promptgate.yaml`: `groups` (who
 * sees it) and `mimeTypes` (path → media type, for a file not served as its extension says). Kept out
 * of SKILL.md, whose front matter clients see and verify; a dotfile, so never one of the skill's files.
 */
export const SIDECAR = '.promptgate.yaml';

export interface Sidecar {
  groups?: unknown;
  mimeTypes?: Record<string, string>;
}

/** A text file of a skill folder (SKILL.md, the sidecar), or undefined and an issue when it is not UTF-8. */
function textOf(path: string, at: string, issues: Issue[]): string | undefined {
  const text = utf8Text(readFileSync(path));
  if (typeof text === 'string') return text;
  issues.push({ path: `${at}:${text.line}`, message: NOT_UTF8 });
  return undefined;
}

function readSidecar(folder: string, label: string, issues: Issue[]): Sidecar {
  const path = join(folder, SIDECAR);
  if (!existsSync(path)) return {};
  const at = `${label}/${SIDECAR}`;
  const text = textOf(path, at, issues);
  if (text === undefined) return {};
  const doc = parseDocument(text);
  const value = doc.errors.length ? undefined : (doc.toJS() as unknown);
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    issues.push({ path: at, message: 'must be a YAML mapping with `groups: [...]` and/or `mimeTypes: {path: type}`' });
    return {};
  }
  for (const key of Object.keys(value))
    if (key !== 'groups' && key !== 'mimeTypes') issues.push({ path: `${at}: ${key}`, message: 'unknown setting' });
  const { groups, mimeTypes } = value as { groups?: unknown; mimeTypes?: unknown };
  if (mimeTypes === undefined) return { groups };
  const types = mimeTypes && typeof mimeTypes === 'object' && !Array.isArray(mimeTypes) ? mimeTypes : undefined;
  if (!types || Object.values(types).some((t) => typeof t !== 'string')) {
    issues.push({ path: `${at}: mimeTypes`, message: 'must map file paths to media types' });
    return { groups };
  }
  return { groups, mimeTypes: types as Record<string, string> };
}

/** The sidecar `pull` writes for a published skill, or undefined when it needs none (what readSidecar reads back). */
export function sidecarOf(s: Pick<SkillRecord, 'groups' | 'files'>): Sidecar | undefined {
  const out: Sidecar = {};
  if (s.groups !== undefined) out.groups = s.groups;
  // Only what push would not guess from the extension, so a pulled folder stays as plain as a written one.
  const types = s.files.filter((f) => f.mimeType !== undefined && f.mimeType !== mimeTypeOf(f.path));
  if (types.length) out.mimeTypes = Object.fromEntries(types.map((f) => [f.path, f.mimeType!]));
  return Object.keys(out).length ? out : undefined;
}

export function loadSkills(dir: string): SkillFiles {
  const result: SkillFiles = { records: [], bytes: new Map(), sources: new Map(), issues: [] };
  for (const folder of skillFolders(dir, result.issues)) {
    const label = relative(dir, folder).split('\\').join('/');
    const issues: Issue[] = [];
    const files: SkillFileRecord[] = [];
    const { groups, mimeTypes = {} } = readSidecar(folder, label, issues);
    for (const full of filesOf(folder, issues, label)) {
      const bytes = new Uint8Array(readFileSync(full));
      const path = relative(folder, full).split('\\').join('/');
      const digest = sha256(bytes);
      result.bytes.set(digest, bytes);
      const mimeType = Object.hasOwn(mimeTypes, path) ? mimeTypes[path]! : mimeTypeOf(path);
      files.push({ path, digest, size: bytes.byteLength, mimeType });
    }
    for (const path of Object.keys(mimeTypes))
      if (!files.some((f) => f.path === path))
        issues.push({ path: `${label}/${SIDECAR}: mimeTypes: ${path}`, message: 'no such file in the skill' });
    const text = textOf(join(folder, 'SKILL.md'), `${label}/SKILL.md`, issues);
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
  return result;
}
