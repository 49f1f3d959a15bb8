/**
 * Validation of skill records (docs/skills.md), shared by the CLI (before anything is uploaded)
 * and the writer (again, on publish). Names follow the Agent Skills rule; SKILL.md must be among
 * the files and its front matter must be one clients accept (entry-rules.ts); limits are SEP-2640's
 * interoperability limits, and paths ones every host can write side by side, so every host
 * accepts what is published here.
 */
import { isRecord } from '../../lib/json.js';
import type { Issue, SkillRecord } from '../types.js';
import { utf8Length } from '../arguments.js';
import { groupProblems } from '../groups.js';
import { MAX_PROMPT_BYTES, MAX_RECORD_DEPTH, pathDeeperThan } from '../validate.js';
import { DIGEST_PATTERN, MAX_DIGESTS } from './file-store.js';
import { Checker } from '../content-checks.js';
import { quote } from '../issues.js';
import { frontmatterProblems, SKILL_NAME } from './entry-rules.js';

export { SKILL_NAME };
/** SEP-2640 SKILL_LIMITS: hosts must accept skills up to these; servers should not publish beyond them. */
export const SKILL_LIMITS = { files: 512, bytes: 16 * 1024 * 1024 } as const;
/**
 * One file of a skill, uploaded or published: resources/read holds a file several times over while
 * it answers (bytes, then text or base64, then the JSON-RPC body), about 25 MB for a binary file of
 * this size, and an isolate's 128 MB is shared by every request it serves. Equal to the cap on an
 * upstream's resources/read reply (rpc/methods/remote-skills.ts).
 */
export const MAX_SKILL_FILE_BYTES = 4 * 1024 * 1024;
/** The cap as every message names it. */
export const SKILL_FILE_LIMIT = `${MAX_SKILL_FILE_BYTES} bytes (${MAX_SKILL_FILE_BYTES / 2 ** 20} MiB)`;
/** Most skills in one publish: as many as prompts (admin-json.ts), bounded by the same 5 MiB body. */
export const MAX_PUBLISH_SKILLS = 2_000;
const MAX_PATH = 512;
const MAX_FRONTMATTER_BYTES = 64 * 1024;
/**
 * A record as stored: one SQLite row of the writer's history, as a prompt is. Unknown keys are
 * kept verbatim, so no per-field limit bounds the whole; a larger one would fail in the write.
 */
export const MAX_SKILL_BYTES = MAX_PROMPT_BYTES;

/** A file path inside a skill: relative, `/`-separated, no empty, `.` or `..` segments, no dotfiles. */
function pathProblem(path: unknown): string | undefined {
  if (typeof path !== 'string' || path === '') return 'must be a non-empty path';
  if (path.length > MAX_PATH) return `longer than ${MAX_PATH} characters`;
  // Control characters (C0, DEL, C1) and bidirectional formatting marks (Trojan Source, CVE-2021-42574)
  // make a listed path read as another in a terminal, a diff or a client's file picker.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (path.includes('\\') || /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(path))
    return 'must use / and no control or bidirectional formatting characters';
  // A lone surrogate is no character: the path could not be written as a URI (or a file name).
  if (/\p{Cs}/u.test(path)) return 'must be well-formed Unicode';
  const segments = path.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.startsWith('.')))
    return 'must be relative, with no empty, ".", ".." or hidden segments';
  if (!segments.every(portable))
    return 'must be a name every file system can hold: no <>:"|?* characters, no segment ending in "." or a space, no device name (CON, NUL, COM1, …)';
  return undefined;
}

/** A file over MAX_SKILL_FILE_BYTES, named as `<skill>/<path>` (either may be malformed here: quoted then). */
export function fileTooLarge(name: unknown, path: unknown, size: number): string {
  const plain = (v: unknown) => (typeof v === 'string' ? v : quote(v));
  return `${plain(name)}/${plain(path)} is ${size} bytes; one skill file is at most ${SKILL_FILE_LIMIT}`;
}

/** Windows' device names, which no folder there can hold under any extension (`nul.txt` too). */
const DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\.|$)/i;

/**
 * Whether a path segment can be a file or folder name on every system a skill is pulled to
 * (`promptgate pull`, a client's skill folder): a name Windows refuses would publish fine and then
 * fail there, halfway through a pull.
 */
const portable = (segment: string): boolean =>
  !/[<>:"|?*]/.test(segment) && !/[. ]$/.test(segment) && !DEVICE.test(segment);

export function validateSkill(value: unknown): Issue[] {
  const c = new Checker();
  checkSkill(c, value);
  return c.issues;
}

/** One record's problems, into `c` (whose cap counts the whole set's). */
function checkSkill(c: Checker, value: unknown): void {
  if (!isRecord(value)) return c.fail(c.at ? '' : 'skill', 'must be an object');
  const { name, frontmatter, files, groups } = value;
  // First: JSON.stringify below never ends on a value that holds itself (a YAML alias can).
  const deep = pathDeeperThan(value, MAX_RECORD_DEPTH);
  if (deep !== undefined)
    c.fail(
      deep,
      `nests deeper than ${MAX_RECORD_DEPTH} levels, the most a skill record may (so it fits every admin request)`,
    );
  if (typeof name !== 'string' || !SKILL_NAME.test(name))
    c.fail('name', 'must be a skill name: a-z 0-9 and single hyphens, 1-64 characters, no hyphen at either end');
  if (!isRecord(frontmatter)) c.fail('frontmatter', 'must be the SKILL.md front matter as an object');
  else {
    for (const [field, message] of frontmatterProblems(frontmatter, name)) c.fail(field, message);
    if (deep === undefined && JSON.stringify(frontmatter).length > MAX_FRONTMATTER_BYTES)
      c.fail('frontmatter', `larger than ${MAX_FRONTMATTER_BYTES} bytes`);
  }
  for (const [p, m] of groupProblems(groups, 'groups')) c.fail(p, m);
  if (!Array.isArray(files)) return c.fail('files', 'must be a list of {path, digest, size}');
  if (files.length > SKILL_LIMITS.files) c.fail('files', `at most ${SKILL_LIMITS.files} files per skill`);
  const seen = new Set<string>();
  /** Each file's path, where it is valid and listed once: what clashes are looked for among. */
  const paths: (string | undefined)[] = [];
  let total = 0;
  files.forEach((f: unknown, i) => {
    const p = `files[${i}]`;
    if (!isRecord(f)) return c.fail(p, 'must be {path, digest, size}');
    const problem = pathProblem(f.path);
    if (problem) c.fail(`${p}.path`, problem);
    else if (seen.has(f.path as string)) c.fail(`${p}.path`, `duplicate file "${String(f.path)}"`);
    else seen.add((paths[i] = f.path as string));
    if (typeof f.digest !== 'string' || !DIGEST_PATTERN.test(f.digest))
      c.fail(`${p}.digest`, 'must be sha256: and 64 lowercase hex digits');
    const size = f.size as number;
    if (!Number.isSafeInteger(size) || size < 0) c.fail(`${p}.size`, 'must be a byte count');
    else {
      total += size;
      if (size > MAX_SKILL_FILE_BYTES) c.fail(`${p}.size`, fileTooLarge(name, f.path, size));
    }
    if (f.mimeType !== undefined && (typeof f.mimeType !== 'string' || f.mimeType.length > 100))
      c.fail(`${p}.mimeType`, 'must be a media type');
  });
  checkClashes(c, paths);
  if (!seen.has('SKILL.md')) c.fail('files', 'must include SKILL.md');
  if (total > SKILL_LIMITS.bytes) c.fail('files', `larger than ${SKILL_LIMITS.bytes} bytes in all (SEP-2640 limit)`);
  const bytes = deep === undefined ? utf8Length(JSON.stringify(value)) : 0;
  if (bytes > MAX_SKILL_BYTES)
    c.fail('', `is ${bytes} bytes as JSON; a skill record is at most ${MAX_SKILL_BYTES} bytes`);
}

/**
 * A path as file systems may compare it: NFC, then case-folded (upper then lower, so `ß` meets `ss`
 * and `ς` meets `σ`, as case-insensitive file systems fold them).
 */
export const foldPath = (path: string) => path.normalize('NFC').toUpperCase().toLowerCase();

/**
 * Paths no host can write side by side, each named with the file it clashes with: two a normalising or
 * case-insensitive file system takes for one, and a file that another path needs as its folder.
 */
function checkClashes(c: Checker, paths: readonly (string | undefined)[]): void {
  const files = new Map<string, number>();
  paths.forEach((path, i) => {
    if (path === undefined) return;
    const first = files.get(foldPath(path));
    if (first === undefined) files.set(foldPath(path), i);
    else
      c.fail(
        `files[${i}].path`,
        `${quote(path)} and ${quote(paths[first])} (files[${first}]) differ only in case or Unicode form: one file on many hosts`,
      );
  });
  paths.forEach((path, i) => {
    for (let at = path?.indexOf('/') ?? -1; path && at > 0; at = path.indexOf('/', at + 1)) {
      const file = files.get(foldPath(path.slice(0, at)));
      if (file === undefined) continue;
      const clash = `${quote(path)} needs the folder ${quote(path.slice(0, at))}, but ${quote(paths[file])} (files[${file}]) is a file`;
      return c.fail(`files[${i}].path`, clash);
    }
  });
}

/**
 * What bounds a whole publish beyond each record: how many skills, and how many distinct files they
 * name (each checked against the writer's record of uploads, at most MAX_DIGESTS at once). The CLI
 * checks its directory with this too.
 */
export function skillSetLimits(values: readonly unknown[]): Issue[] {
  if (values.length > MAX_PUBLISH_SKILLS) return [{ path: 'skills', message: `at most ${MAX_PUBLISH_SKILLS} skills` }];
  const digests = new Set<unknown>();
  for (const v of values)
    if (isRecord(v) && Array.isArray(v.files))
      for (const f of v.files as unknown[]) if (isRecord(f)) digests.add(f.digest);
  if (digests.size > MAX_DIGESTS)
    return [{ path: 'skills', message: `${digests.size} distinct files; one publish names at most ${MAX_DIGESTS}` }];
  return [];
}

/** A whole publish: its limits, every skill, and no name twice. */
export function validateSkillSet(values: unknown[]): Issue[] {
  const limits = skillSetLimits(values);
  if (limits.length) return limits;
  const c = new Checker();
  const names = new Set<string>();
  values.forEach((v, i) => {
    c.at = `skills[${i}]: `;
    checkSkill(c, v);
    const name = isRecord(v) ? v.name : undefined;
    if (typeof name === 'string') {
      if (names.has(name)) c.fail('name', `duplicate skill ${quote(name)}`);
      names.add(name);
    }
  });
  return c.issues;
}

/** The record as stored: files sorted by path, so equal skills compare equal. */
export function normalizeSkill(r: SkillRecord): SkillRecord {
  return { ...r, files: [...r.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) };
}
