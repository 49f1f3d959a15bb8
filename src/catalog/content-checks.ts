/**
 * The checks of a prompt record's parts that the spec types define (validate.ts checks the record
 * as a whole): content blocks, with what every block may carry (annotations, `_meta`) as the MCP
 * SDK's schemas require it, since a client refuses the whole `prompts/get` over one bad field, and
 * icons. Each problem is reported with its field path; the Checker lists the first MAX_ISSUES and
 * counts the rest, so a body of bad elements cannot make a list of megabytes.
 */
import { isRecord } from '../lib/json.js';
import { MAX_ISSUES, more } from './issues.js';
import type { Issue } from './types.js';
import { fieldHint } from './field-names.js';

const MAX_TEXT = 100_000;
const BASE64_BODY = /^[A-Za-z0-9+/]*$/;
/** The last data character before `==` or `=`: the one whose unused low bits are all zero. */
const BASE64_LAST = { 1: 'AEIMQUYcgkosw048', 2: 'AQgw' } as const;

/**
 * Canonical base64 only (RFC 4648 §3.5: whole 4-character groups, `=` only at the end and only as
 * needed, unused bits zero): `pull` decodes the data to a file and `push` encodes it again, so any
 * other spelling of the same bytes would come back changed, or not decode at all.
 * No regex over the whole: data runs to megabytes, and a repeated group would backtrack over it.
 */
function isCanonicalBase64(s: string): boolean {
  if (s.length % 4 !== 0) return false;
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  if (!BASE64_BODY.test(s.slice(0, s.length - pad))) return false;
  return pad === 0 || BASE64_LAST[pad].includes(s[s.length - pad - 1]!);
}

/**
 * Whether the SDK's clients take `s` as base64 (they check with atob, WHATWG's forgiving decode): an
 * upstream's block that fails it would make them refuse the whole result, so it is dropped instead.
 */
export function decodesAsBase64(s: string): boolean {
  // Canonical base64 always decodes, and is checked without decoding megabytes only to drop them.
  if (isCanonicalBase64(s)) return true;
  try {
    atob(s);
    return true;
  } catch {
    return false;
  }
}

type Obj = Record<string, unknown>;

/** Gathers issues with their field paths, the first MAX_ISSUES of them; the rest are only counted. */
export class Checker {
  /** Prefixed to every path: which record of a set is being checked. */
  at = '';
  private readonly listed: Issue[] = [];
  private found = 0;
  /** Every problem found so far, listed or not. */
  get count(): number {
    return this.found;
  }
  /** Whether a further problem is only counted: work that would only describe it can be skipped. */
  get full(): boolean {
    return this.found >= MAX_ISSUES;
  }
  get issues(): Issue[] {
    return this.found > MAX_ISSUES ? [...this.listed, more(this.found - MAX_ISSUES)] : this.listed;
  }
  fail(path: string, message: string): void {
    if (!this.full) this.listed.push({ path: this.at + path, message });
    this.found++;
  }
  /**
   * Refuses fields the record does not have: a misspelt one would be stored and ignored, and a
   * misspelt `groups` would publish a restricted prompt to everyone.
   */
  only(o: Obj, known: readonly string[], path: string, what: string): void {
    for (const key of Object.keys(o)) {
      if (known.includes(key)) continue;
      // The hint compares the key with every known field: not worth it for a problem only counted.
      const hint = this.full ? '' : fieldHint(key, known);
      this.fail(path + key, `is not ${what} field${hint}; known: ${known.join(', ')}`);
    }
  }
  str(o: Obj, key: string, path: string, opts: { required?: boolean; max?: number } = {}): void {
    const v = o[key];
    if (v === undefined) {
      if (opts.required) this.fail(path + key, 'required');
    } else if (typeof v !== 'string') this.fail(path + key, 'must be a string');
    else if (v.length > (opts.max ?? MAX_TEXT)) this.fail(path + key, `longer than ${opts.max ?? MAX_TEXT} characters`);
    else if (opts.required && v === '') this.fail(path + key, 'must not be empty');
  }
}

export function checkIcons(c: Checker, icons: unknown, path: string): void {
  if (icons === undefined) return;
  if (!Array.isArray(icons)) return c.fail(path, 'must be a list');
  icons.forEach((icon, i) => {
    const p = `${path}[${i}]`;
    if (!isRecord(icon)) return c.fail(p, 'must be an object');
    c.str(icon, 'src', `${p}.`, { required: true, max: 200_000 });
    if (typeof icon.src === 'string' && !/^(https:|data:)/.test(icon.src))
      c.fail(`${p}.src`, 'must be an https: or data: URI');
    c.str(icon, 'mimeType', `${p}.`, { max: 100 });
    if (icon.theme !== undefined && icon.theme !== 'light' && icon.theme !== 'dark')
      c.fail(`${p}.theme`, 'must be light or dark');
    if (icon.sizes !== undefined && !(Array.isArray(icon.sizes) && icon.sizes.every((s) => typeof s === 'string')))
      c.fail(`${p}.sizes`, 'must be a list of strings');
  });
}

function checkBase64(c: Checker, o: Obj, key: string, path: string, mimePrefix: string): void {
  c.str(o, key, path, { required: true, max: 10_000_000 });
  if (typeof o[key] === 'string' && !isCanonicalBase64(o[key]))
    c.fail(path + key, 'must be base64 in its canonical form (groups of 4 characters, = padding only as needed)');
  c.str(o, 'mimeType', path, { required: true, max: 100 });
  if (mimePrefix && typeof o.mimeType === 'string' && !o.mimeType.startsWith(mimePrefix))
    c.fail(`${path}mimeType`, `must be a ${mimePrefix}* type`);
}

const ROLES: readonly unknown[] = ['user', 'assistant'];
/** As the SDK's `z.iso.datetime({ offset: true })`: seconds required, `Z` or a ±HH:MM offset. */
const ISO_DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

/** An ISO 8601 date-time on a real calendar day (V8's Date.parse would roll 2026-02-30 over to March). */
export function isIsoDateTime(v: unknown): v is string {
  const m = typeof v === 'string' ? ISO_DATETIME.exec(v) : null;
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const day = new Date(Date.UTC(y, mo - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === mo - 1 && day.getUTCDate() === d;
}

/** `_meta`, where the spec allows it: an object. */
function checkMeta(c: Checker, o: Obj, path: string): void {
  if (o._meta !== undefined && !isRecord(o._meta)) c.fail(`${path}_meta`, 'must be an object');
}

/** What every content block may carry besides its content: `_meta` and annotations. */
function checkBlockExtras(c: Checker, block: Obj, p: string): void {
  checkMeta(c, block, p);
  const a = block.annotations;
  if (a === undefined) return;
  if (!isRecord(a)) return c.fail(`${p}annotations`, 'must be an object');
  if (a.audience !== undefined && !(Array.isArray(a.audience) && a.audience.every((r) => ROLES.includes(r))))
    c.fail(`${p}annotations.audience`, 'must be a list of user and assistant');
  if (a.priority !== undefined && !(typeof a.priority === 'number' && a.priority >= 0 && a.priority <= 1))
    c.fail(`${p}annotations.priority`, 'must be a number from 0 to 1');
  if (a.lastModified !== undefined && !isIsoDateTime(a.lastModified))
    c.fail(
      `${p}annotations.lastModified`,
      'must be an ISO 8601 date-time with its offset, such as 2026-01-31T12:00:00Z',
    );
}

/**
 * The fields of each content block, and of an embedded resource's contents, as the MCP 2025-11-25
 * schema defines them (a resource's contents hold text or blob, never both). Anything else is
 * refused: a misspelt `anotations` would be stored and served, and never do what it was meant to.
 */
const EXTRAS = ['annotations', '_meta'];
const BLOCKS: Readonly<Record<string, readonly [what: string, fields: readonly string[]]>> = {
  text: ['a text block', ['type', 'text', ...EXTRAS]],
  image: ['an image block', ['type', 'data', 'mimeType', ...EXTRAS]],
  audio: ['an audio block', ['type', 'data', 'mimeType', ...EXTRAS]],
  resource_link: [
    'a resource_link block',
    ['type', 'uri', 'name', 'title', 'description', 'mimeType', 'size', 'icons', ...EXTRAS],
  ],
  resource: ['a resource block', ['type', 'resource', ...EXTRAS]],
};
const RESOURCE_CONTENTS_FIELDS = ['uri', 'mimeType', 'text', 'blob', '_meta'];

export function checkContent(c: Checker, block: unknown, path: string): void {
  if (!isRecord(block)) return c.fail(path, 'must be an object');
  const p = `${path}.`;
  if (typeof block.type === 'string' && Object.hasOwn(BLOCKS, block.type)) {
    const [what, fields] = BLOCKS[block.type]!;
    c.only(block, fields, p, what);
  }
  checkBlockExtras(c, block, p);
  switch (block.type) {
    case 'text':
      return c.str(block, 'text', p, { required: true });
    case 'image':
      return checkBase64(c, block, 'data', p, 'image/');
    case 'audio':
      return checkBase64(c, block, 'data', p, 'audio/');
    case 'resource_link':
      c.str(block, 'uri', p, { required: true, max: 4096 });
      c.str(block, 'name', p, { required: true, max: 256 });
      // Served as they are, and turned into a link's text for 2025-03-26 clients (shape.ts).
      c.str(block, 'title', p, { max: 200 });
      c.str(block, 'description', p, { max: 4000 });
      c.str(block, 'mimeType', p, { max: 100 });
      if (
        block.size !== undefined &&
        !(typeof block.size === 'number' && Number.isFinite(block.size) && block.size >= 0)
      )
        c.fail(`${p}size`, 'must be a number of bytes');
      return checkIcons(c, block.icons, `${p}icons`);
    case 'resource': {
      const r = block.resource;
      if (!isRecord(r)) return c.fail(`${p}resource`, 'required');
      c.only(r, RESOURCE_CONTENTS_FIELDS, `${p}resource.`, 'an embedded resource');
      if (r.text !== undefined && r.blob !== undefined) c.fail(`${p}resource`, 'has text and blob: keep one');
      c.str(r, 'uri', `${p}resource.`, { required: true, max: 4096 });
      c.str(r, 'mimeType', `${p}resource.`, { max: 100 });
      checkMeta(c, r, `${p}resource.`);
      // Text is text wherever it sits: a resource's is served and rendered as a text block's is.
      if (typeof r.text === 'string') return c.str(r, 'text', `${p}resource.`);
      if (r.blob !== undefined)
        return checkBase64(
          c,
          { ...r, mimeType: r.mimeType ?? 'application/octet-stream' },
          'blob',
          `${p}resource.`,
          '',
        );
      return c.fail(`${p}resource`, 'needs text or blob');
    }
    default:
      c.fail(`${p}type`, 'must be one of text, image, audio, resource, resource_link');
  }
}
