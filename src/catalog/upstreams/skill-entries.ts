/**
 * Upstream skill entries (SEP-2640, docs/upstreams.md "Upstream skills"), for an upstream that declares
 * the Skills extension: each `skills/list` entry is mounted under `skill://<mount>/` (the upstream's
 * prefix, else its id), so two upstreams' same-named skills never collide; a listed client URI keeps
 * its upstream's own as its origin (skills/index.ts serves it). Listings are untrusted: an entry that
 * is malformed, not `skill://`, over the SEP's limits or one SEP-2640 clients refuse (skills/entry-rules.ts)
 * is skipped (logged), and the kept ones are bounded like prompt listings.
 * Listing them is skills.ts.
 */
import { isRecord } from '../../lib/json.js';
import { log } from '../../lib/log.js';
import { utf8Length } from '../arguments.js';
import { canonical } from '../diff.js';
import { frontmatterProblems, SKILL_NAME, skillUriSegments } from '../skills/entry-rules.js';
import type { SkillResourceRecord, UpstreamSkill } from '../types.js';
import type { UpstreamConfig } from './schema.js';
import type { Json } from './wire.js';

/** SEP-2640's per-skill limits (the SDK's SKILL_LIMITS): hosts accept up to these, so do we, no further. */
export const SKILL_MAX_FILES = 512;
export const SKILL_MAX_BYTES = 16 * 1024 * 1024;
/** Bounds of one upstream's skills listing, as prompts/list has (pages, entries) plus bytes of what is kept. */
export const MAX_SKILL_PAGES = 100;
export const MAX_UPSTREAM_SKILLS = 1_000;
export const MAX_SKILLS_LISTING_BYTES = 1024 * 1024;
/** The front matter is kept verbatim, so it is bounded as a whole (JSON length) rather than cut. */
export const MAX_FRONTMATTER_BYTES = 16 * 1024;
const DIGEST = /^sha256:[0-9a-f]{64}$/;
const SCHEME = 'skill://';
const MANIFEST = '/SKILL.md';

/** The Skills extension's id (SEP-2640); the gateway's own declaration is rpc/server-info.ts (rpc imports catalog, not back). */
const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** Whether capabilities declare the Skills extension (SEP-2640): `extensions['io.modelcontextprotocol/skills']` is an object. */
export function declaresSkills(capabilities: Json | undefined): boolean {
  const ext = capabilities?.extensions;
  return isRecord(ext) && isRecord(ext[SKILLS_EXTENSION]);
}

/** Where an upstream's skills are mounted: `skill://<prefix>/…`, or `skill://<id>/…` for an unprefixed upstream. */
export const mountOf = (u: Pick<UpstreamConfig, 'id' | 'prefix'>): string => u.prefix || u.id;

/** A client URI under `mount` for the upstream's own `skill://` URI. */
export const clientUri = (mount: string, upstreamUri: string): string =>
  `${SCHEME}${mount}/${upstreamUri.slice(SCHEME.length)}`;

/** One `skills/list` entry as published here, or why it is skipped. */
export function mapSkill(mount: string, upstream: string, entry: unknown): UpstreamSkill | string {
  if (!isRecord(entry)) return 'entry is not an object';
  const { uri, frontmatter, resources } = entry;
  const segments = skillUriSegments(uri);
  if (!segments || typeof uri !== 'string' || !uri.endsWith(MANIFEST)) return 'uri is not a skill:// SKILL.md URI';
  // Clients name a skill by its folder: the last segment before SKILL.md, decoded (the mount adds none after).
  const folder = segments.at(-2)!;
  if (!SKILL_NAME.test(folder)) return 'its folder is not a skill name';
  if (!isRecord(frontmatter) || typeof frontmatter.name !== 'string' || typeof frontmatter.description !== 'string')
    return 'frontmatter has no name and description';
  if (utf8Length(JSON.stringify(frontmatter)) > MAX_FRONTMATTER_BYTES)
    return `frontmatter over ${MAX_FRONTMATTER_BYTES} bytes`;
  const problem = frontmatterProblems(frontmatter, folder)[0];
  if (problem) return `${problem[0]}: ${problem[1]}`;
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
  /** Files by their decoded segments: clients take two spellings of one path (`a%41`, `aA`) for one file. */
  const seen = new Set<string>();
  let bytes = 0;
  let listsSelf = false;
  for (const r of resources as unknown[]) {
    if (!isRecord(r) || typeof r.uri !== 'string') return 'a file URI is malformed';
    const file = skillUriSegments(r.uri);
    // Inside as written: with no dot segment in any spelling, the URI names a file inside its folder.
    if (!file || !(r.uri === uri || r.uri.startsWith(dir))) return 'a file URI is malformed';
    listsSelf ||= r.uri === uri;
    if (typeof r.digest !== 'string' || !DIGEST.test(r.digest)) return 'a file digest is malformed';
    if (typeof r.size !== 'number' || !Number.isSafeInteger(r.size) || r.size < 0) return 'a file size is malformed';
    const key = file.join('/');
    if (seen.has(key)) return 'a file is listed twice';
    seen.add(key);
    bytes += r.size;
    out.push({ uri: clientUri(mount, r.uri), digest: r.digest, size: r.size });
  }
  if (bytes > SKILL_MAX_BYTES) return `over ${SKILL_MAX_BYTES} bytes`;
  if (!listsSelf) return 'SKILL.md is not among its resources';
  skill.resources = out;
  return skill;
}

/** What a skills listing has kept so far: its pages are mapped one by one (skills.ts), never held whole. */
export interface KeptSkills {
  skills: UpstreamSkill[];
  uris: Set<string>;
  bytes: number;
}

export const noSkillsKept = (): KeptSkills => ({ skills: [], uris: new Set(), bytes: 0 });

/**
 * A listing's entries (a whole listing, or its next page onto what `kept` holds), mapped; skipped ones
 * are logged, and the kept ones bounded in count and bytes across the whole listing.
 */
export function mapSkills(
  u: Pick<UpstreamConfig, 'id' | 'prefix'>,
  entries: readonly unknown[],
  kept: KeptSkills = noSkillsKept(),
): UpstreamSkill[] {
  const mount = mountOf(u);
  const { skills: out, uris } = kept;
  for (const e of entries) {
    const s = mapSkill(mount, u.id, e);
    const why =
      typeof s === 'string'
        ? s
        : uris.has(s.uri)
          ? 'listed twice'
          : out.length >= MAX_UPSTREAM_SKILLS
            ? `past ${MAX_UPSTREAM_SKILLS} skills`
            : (kept.bytes += utf8Length(canonical(s))) > MAX_SKILLS_LISTING_BYTES
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
