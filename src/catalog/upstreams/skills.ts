/**
 * Upstream skills (SEP-2640, docs/upstreams.md "Upstream skills"): an upstream that declares the Skills
 * extension is listed with `skills/list` too, and each entry is mounted under `skill://<mount>/` (the
 * upstream's prefix, else its id), so two upstreams' same-named skills never collide. Listings are
 * untrusted: bounded like prompt listings, and an entry that is malformed, not `skill://` or over the
 * SEP's limits is skipped (logged). A skills failure never costs the prompts listing, nor the reverse.
 */
import { isRecord } from '../../lib/json.js';
import { log } from '../../lib/log.js';
import { canonical } from '../diff.js';
import type { CacheHints } from '../hints.js';
import type { SkillResourceRecord, UpstreamSkill, UpstreamState } from '../types.js';
import { declaresSkills, type UpstreamClient } from './client.js';
import type { UpstreamConfig } from './schema.js';
import { describeFault, UpstreamError } from './errors.js';
import { deadline, type Deadline, type Json } from './wire.js';

/** SEP-2640's per-skill limits (the SDK's SKILL_LIMITS): hosts accept up to these, so do we, no further. */
export const SKILL_MAX_FILES = 512;
export const SKILL_MAX_BYTES = 16 * 1024 * 1024;
/** Bounds of one upstream's skills listing, as prompts/list has (pages, entries) plus bytes of what is kept. */
export const MAX_SKILL_PAGES = 100;
export const MAX_UPSTREAM_SKILLS = 1_000;
export const MAX_SKILLS_LISTING_BYTES = 1024 * 1024;
/** The front matter is kept verbatim, so it is bounded as a whole (JSON length) rather than cut. */
export const MAX_FRONTMATTER_BYTES = 16 * 1024;
const MAX_URI = 1024;
const DIGEST = /^sha256:[0-9a-f]{64}$/;
const SCHEME = 'skill://';
const MANIFEST = '/SKILL.md';

/** The skills half of a listing: `skills` when listed, `skillsError` when that failed; neither when not declared. */
export interface SkillsOutcome {
  skills?: UpstreamSkill[];
  skillsError?: string;
}

/** Where an upstream's skills are mounted: `skill://<prefix>/…`, or `skill://<id>/…` for an unprefixed upstream. */
export const mountOf = (u: Pick<UpstreamConfig, 'id' | 'prefix'>): string => u.prefix || u.id;

/** Mount → upstream id, for `skillOriginOf` (the first upstream keeps a mount, as prefixes are unique anyway). */
export function skillMounts(upstreams: readonly Pick<UpstreamState, 'id' | 'prefix'>[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const u of upstreams) if (!m.has(mountOf(u))) m.set(mountOf(u), u.id);
  return m;
}

/**
 * Where a client's skill URI lives upstream, by its mount alone (as an unlisted prompt name routes by its
 * prefix): `skill://<mount>/<rest>` → `{upstream, uri: 'skill://<rest>'}`; null when no upstream has that
 * mount or the URI is not a skill URI. The caller decides first whether a local skill or a listed upstream
 * file owns the URI, and whether the caller may see that upstream (its groups).
 */
export function skillOriginOf(
  uri: string,
  mounts: ReadonlyMap<string, string>,
): { upstream: string; uri: string } | null {
  if (!uri.startsWith(SCHEME)) return null;
  const rest = uri.slice(SCHEME.length);
  const i = rest.indexOf('/');
  const upstream = i > 0 ? mounts.get(rest.slice(0, i)) : undefined;
  return upstream && i < rest.length - 1 ? { upstream, uri: `${SCHEME}${rest.slice(i + 1)}` } : null;
}

/** A client URI under `mount` for the upstream's own `skill://` URI. */
export const clientUri = (mount: string, upstreamUri: string): string =>
  `${SCHEME}${mount}/${upstreamUri.slice(SCHEME.length)}`;

/** A well-formed skill URI: `skill://`, bounded, no whitespace or control characters, no dot segments, no query. */
function goodUri(v: unknown): v is string {
  if (typeof v !== 'string' || !v.startsWith(SCHEME) || v.length > MAX_URI) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\s\x00-\x1f\x7f?#\\]/.test(v)) return false;
  const segments = v.slice(SCHEME.length).split('/');
  return segments.length >= 2 && segments.every((s) => s !== '' && s !== '.' && s !== '..');
}

/** One `skills/list` entry as published here, or why it is skipped. */
export function mapSkill(mount: string, upstream: string, entry: unknown): UpstreamSkill | string {
  if (!isRecord(entry)) return 'entry is not an object';
  const { uri, frontmatter, resources } = entry;
  if (!goodUri(uri) || !uri.endsWith(MANIFEST)) return 'uri is not a skill:// SKILL.md URI';
  if (!isRecord(frontmatter) || typeof frontmatter.name !== 'string' || typeof frontmatter.description !== 'string')
    return 'frontmatter has no name and description';
  if (JSON.stringify(frontmatter).length > MAX_FRONTMATTER_BYTES)
    return `frontmatter over ${MAX_FRONTMATTER_BYTES} bytes`;
  const skill: UpstreamSkill = {
    uri: clientUri(mount, uri),
    frontmatter,
    resources: 'dynamic',
    origin: { upstream, uri },
  };
  if (resources === 'dynamic') return skill;
  if (!Array.isArray(resources)) return 'resources is neither a list nor "dynamic"';
  if (resources.length > SKILL_MAX_FILES) return `over ${SKILL_MAX_FILES} files`;
  const dir = uri.slice(0, -MANIFEST.length + 1);
  const out: SkillResourceRecord[] = [];
  const seen = new Set<string>();
  let bytes = 0;
  for (const r of resources) {
    if (!isRecord(r) || !goodUri(r.uri) || !(r.uri === uri || r.uri.startsWith(dir))) return 'a file URI is malformed';
    if (typeof r.digest !== 'string' || !DIGEST.test(r.digest)) return 'a file digest is malformed';
    if (typeof r.size !== 'number' || !Number.isSafeInteger(r.size) || r.size < 0) return 'a file size is malformed';
    if (seen.has(r.uri)) return 'a file is listed twice';
    seen.add(r.uri);
    bytes += r.size;
    out.push({ uri: clientUri(mount, r.uri), digest: r.digest, size: r.size });
  }
  if (bytes > SKILL_MAX_BYTES) return `over ${SKILL_MAX_BYTES} bytes`;
  if (!seen.has(uri)) return 'SKILL.md is not among its resources';
  skill.resources = out;
  return skill;
}

/** A whole listing's entries, mapped; skipped ones are logged, and the kept ones bounded in count and bytes. */
export function mapSkills(u: Pick<UpstreamConfig, 'id' | 'prefix'>, entries: readonly unknown[]): UpstreamSkill[] {
  const mount = mountOf(u);
  const out: UpstreamSkill[] = [];
  const uris = new Set<string>();
  let bytes = 0;
  for (const e of entries) {
    const s = mapSkill(mount, u.id, e);
    const why =
      typeof s === 'string'
        ? s
        : uris.has(s.uri)
          ? 'listed twice'
          : out.length >= MAX_UPSTREAM_SKILLS
            ? `past ${MAX_UPSTREAM_SKILLS} skills`
            : (bytes += canonical(s).length) > MAX_SKILLS_LISTING_BYTES
              ? `past ${MAX_SKILLS_LISTING_BYTES} bytes of listing`
              : null;
    if (why !== null || typeof s === 'string') {
      const at = isRecord(e) && typeof e.uri === 'string' ? e.uri.slice(0, 200) : undefined;
      log.warn('upstream skill skipped', { upstream: u.id, uri: at, reason: why });
      continue;
    }
    uris.add(s.uri);
    out.push(s);
  }
  return out;
}

/** Every `skills/list` page (bounded like prompts/list), within the operation's deadline; never throws. */
export async function listSkills(client: UpstreamClient, u: UpstreamConfig, d: Deadline): Promise<SkillsOutcome> {
  const all: unknown[] = [];
  let cursor: string | undefined;
  try {
    for (let page = 0; page < MAX_SKILL_PAGES; page++) {
      const r = await client.request('skills/list', cursor ? { cursor } : {}, d);
      if (!Array.isArray(r.skills)) throw new UpstreamError('protocol', 'skills/list result has no skills array');
      // Entries past the cap are not read into the listing (mapSkills would skip them anyway).
      all.push(...(r.skills as unknown[]).slice(0, MAX_UPSTREAM_SKILLS - all.length));
      cursor = typeof r.nextCursor === 'string' && r.nextCursor ? r.nextCursor : undefined;
      if (!cursor || all.length >= MAX_UPSTREAM_SKILLS) return { skills: mapSkills(u, all) };
    }
    throw new UpstreamError('protocol', `skills/list did not end within ${MAX_SKILL_PAGES} pages`);
  } catch (e) {
    const skillsError = describeFault(e);
    log.warn('upstream skills list failed', { upstream: u.id, error: skillsError });
    return { skillsError };
  }
}

/** What one listing of an upstream gives: its prompts (or why not) and its skills (when it declares them). */
export interface Listed {
  listing?: { prompts: Json[]; hints?: CacheHints };
  error?: unknown;
  skills: SkillsOutcome;
}

/**
 * Lists an upstream's prompts and, when it declares the extension, its skills, side by side within one
 * deadline (the handshake included). An upstream that declares skills but not prompts is not asked for
 * prompts (it would answer "method not found"). Never throws: a failed half is reported as such.
 */
export async function listUpstream(client: UpstreamClient, u: UpstreamConfig): Promise<Listed> {
  const d = deadline(u.timeoutMs);
  let caps: Json;
  try {
    caps = await client.capabilities(d);
  } catch (error) {
    return { error, skills: {} };
  }
  const skills = declaresSkills(caps);
  const [prompts, listed] = await Promise.all([
    !skills || caps.prompts !== undefined
      ? client.listing(undefined, d).then(
          (listing) => ({ listing }),
          (error: unknown) => ({ error }),
        )
      : { listing: { prompts: [] } },
    skills ? listSkills(client, u, d) : {},
  ]);
  return { ...prompts, skills: listed };
}

/**
 * The skills part of an upstream's next state, given its last one and a report: a fresh listing replaces
 * the last; a failed one keeps the last good listing, marked by `skillsError`; an upstream that no longer
 * declares the extension has none. `changed` says whether what clients see changed (a list change).
 */
export function nextSkills(
  prev: Pick<UpstreamState, 'skills'> | undefined,
  r: SkillsOutcome,
): { state: Pick<UpstreamState, 'skills' | 'skillsError'>; changed: boolean } {
  const before = prev?.skills ?? [];
  if (r.skills) return { state: { skills: r.skills }, changed: canonical(before) !== canonical(r.skills) };
  if (r.skillsError !== undefined)
    return { state: { ...(prev?.skills && { skills: prev.skills }), skillsError: r.skillsError }, changed: false };
  return { state: {}, changed: before.length > 0 };
}
