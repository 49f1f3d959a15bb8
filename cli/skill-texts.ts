/**
 * A skill folder's two YAML-bearing text files (skills.ts reads the rest as bytes): `SKILL.md`,
 * whose front matter becomes the record's, and the `.promptgate.yaml` sidecar, which `pull` writes
 * back (sidecarOf). Both are UTF-8, read only within their byte cap, and nest within a record's
 * depth; they stand apart because they are read as YAML, not stored as files.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import type { Issue, SkillRecord } from '../src/catalog/types.js';
import { mimeTypeOf } from '../src/catalog/skills/mime.js';
import { MAX_SKILL_BYTES } from '../src/catalog/skills/validate.js';
import { MAX_RECORD_DEPTH, pathDeeperThan } from '../src/catalog/validate.js';
import { NOT_UTF8, utf8Text } from './files.js';
import { readAtMost } from './fs-source.js';

/**
 * Why a YAML value read into a skill record (its front matter, its groups) cannot be one, or
 * undefined: it sits at the record's second level, and a record nests at most MAX_RECORD_DEPTH
 * levels, as a prompt does. An alias inside itself (`&x [*x]`) nests forever: checked here, no
 * JSON.stringify of it ever ends well.
 */
function tooDeep(value: unknown): string | undefined {
  const deep = pathDeeperThan(value, MAX_RECORD_DEPTH - 1);
  if (deep === undefined) return undefined;
  const at = deep.length > 60 ? `${deep.slice(0, 60)}…` : deep;
  return `${at}: nests deeper than ${MAX_RECORD_DEPTH} levels in the skill record, the most one may (a YAML alias inside itself, such as \`&x [*x]\`, nests forever)`;
}

/** The SKILL.md front matter as JSON, or a problem with its line. */
export function frontMatter(text: string): { value?: Record<string, unknown>; problem?: string } {
  const m = /^(?:\uFEFF)?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!m) return { problem: 'SKILL.md needs YAML front matter (a block between --- lines at the top)' };
  const doc = parseDocument(m[1]!);
  if (doc.errors.length) return { problem: `front matter: ${doc.errors[0]!.message.split('\n')[0]}` };
  const value = doc.toJS() as unknown;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { problem: 'front matter must be a mapping' };
  const deep = tooDeep(value);
  return deep ? { problem: `front matter: ${deep}` } : { value: value as Record<string, unknown> };
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

/**
 * A text file of a skill folder (SKILL.md, the sidecar), or undefined and an issue when it is not
 * UTF-8 or is over `max` bytes (then never read).
 */
export function textOf(path: string, at: string, issues: Issue[], max: number): string | undefined {
  const bytes = readAtMost(path, max);
  if (typeof bytes === 'number') {
    issues.push({ path: at, message: `is ${bytes} bytes; at most ${max} bytes` });
    return undefined;
  }
  const text = utf8Text(bytes);
  if (typeof text === 'string') return text;
  issues.push({ path: `${at}:${text.line}`, message: NOT_UTF8 });
  return undefined;
}

export function readSidecar(folder: string, label: string, issues: Issue[]): Sidecar {
  const path = join(folder, SIDECAR);
  if (!existsSync(path)) return {};
  const at = `${label}/${SIDECAR}`;
  // What it holds goes into the record, so the record's limit bounds it.
  const text = textOf(path, at, issues, MAX_SKILL_BYTES);
  if (text === undefined) return {};
  const doc = parseDocument(text);
  const value = doc.errors.length ? undefined : (doc.toJS() as unknown);
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    issues.push({ path: at, message: 'must be a YAML mapping with `groups: [...]` and/or `mimeTypes: {path: type}`' });
    return {};
  }
  const deep = tooDeep(value);
  if (deep) return (void issues.push({ path: at, message: deep }), {});
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
