/**
 * The UPSTREAMS JSON (or the admin-set list) into validated upstream
 * configurations (schema.ts). Every problem is reported with its field path
 * ("UPSTREAMS[1].url: ..."), all of them at once: the admin API refuses a
 * list with any, and at run time an entry with problems is left out, loudly
 * (config.ts), while the rest serve. Header values may
 * name Worker secrets as ${SECRET_NAME}, other than the gateway's own; they
 * are resolved with the headers (parse-fields.ts, secret-ref.ts) and never
 * logged. The URL passes the SSRF guard (ssrf.ts); redirects are never
 * followed (fetch-guard.ts).
 */
import { MAX_ISSUES, more } from '../issues.js';
import { groupProblems } from '../groups.js';
import { NAME_PATTERN } from '../validate.js';
import { prefixFitsSeparator } from '../../lib/config-vars.js';
import { MAX_PREFIXED } from './names.js';
import { aliasesOf, headersOf, namesOf, type At } from './parse-fields.js';
import { parseOAuth, type OAuthParseOptions } from './parse-oauth.js';
import { DEFAULT_TIMEOUT_MS, UpstreamConfigError, type UpstreamConfig } from './schema.js';
import { guardUrl } from './ssrf.js';

const ID = /^[a-z0-9][a-z0-9_-]{0,31}$/;
/**
 * Upstreams one gateway aggregates. Each never-listed one is listed from the request that first
 * needs it, through the six connections an invocation keeps open, and every listing is a part of
 * the one catalog snapshot: past a few dozen, a company wants another gateway, not a longer list.
 */
export const MAX_UPSTREAMS = 50;
/** Where the web catalog says a prompt comes from: `local`, or an upstream's id, which so may not be `local`. */
const LOCAL_SOURCE = 'local';

export interface ParseOptions extends OAuthParseOptions {
  readonly separator: string;
  readonly localPrefix?: string;
}

interface Seen {
  readonly ids: Set<string>;
  readonly prefixes: Set<string>;
  /** The ids of upstreams mounted without a prefix: where their skills are mounted (skill-entries.ts mountOf). */
  readonly bareIds: Set<string>;
}

/**
 * The prefix is checked against the separator, the LOCAL_PREFIX and the prefixes taken so far; and as a
 * skill mount (the prefix, or the id when it is ""), against the mounts taken so far: two upstreams at one
 * mount would each serve URIs of the other.
 */
function checkPrefix(prefix: unknown, id: string, at: At, opts: ParseOptions, seen: Seen, problems: string[]): void {
  // "" mounts the upstream without a prefix (migrations): its names are published as they are, and a local prompt
  // wins a clash. Several upstreams may be unprefixed (the first listed keeps a contested name).
  if (prefix === '') {
    if (seen.prefixes.has(id))
      problems.push(`${at('prefix')}: "" mounts its skills at its id "${id}", which another upstream's prefix takes`);
    seen.bareIds.add(id);
    return;
  }
  if (typeof prefix !== 'string' || !NAME_PATTERN.test(prefix) || !prefixFitsSeparator(prefix, opts.separator))
    problems.push(
      `${at('prefix')}: must use A-Z a-z 0-9 _ . -, and must neither contain the separator "${opts.separator}" nor end in a way that runs into it (a name would then route to another prefix)`,
    );
  // Longer, and a name cut short to its hash (names.ts) would lose its separator, and with it its upstream.
  else if (prefix.length + opts.separator.length > MAX_PREFIXED)
    problems.push(`${at('prefix')}: at most ${MAX_PREFIXED - opts.separator.length} characters`);
  else if (seen.prefixes.has(prefix)) problems.push(`${at('prefix')}: duplicate prefix "${prefix}"`);
  else if (prefix === opts.localPrefix) problems.push(`${at('prefix')}: "${prefix}" is the LOCAL_PREFIX`);
  else if (seen.bareIds.has(prefix))
    problems.push(
      `${at('prefix')}: "${prefix}" is where upstream "${prefix}", mounted without a prefix, mounts its skills`,
    );
  else seen.prefixes.add(prefix);
}

/** One entry of the list; undefined when it cannot be built (its problems are pushed). */
function parseEntry(item: unknown, i: number, opts: ParseOptions, seen: Seen, problems: string[]) {
  const at: At = (f) => `UPSTREAMS[${i}]${f ? `.${f}` : ''}`;
  if (typeof item !== 'object' || item === null || Array.isArray(item))
    return void problems.push(`${at('')}: must be an object`);
  const o = item as Record<string, unknown>;
  const id = o.id;
  if (typeof id !== 'string' || !ID.test(id))
    return void problems.push(`${at('id')}: required, lowercase a-z 0-9 _ - (at most 32)`);
  if (id === LOCAL_SOURCE) problems.push(`${at('id')}: "${id}" is reserved: it marks local prompts in the catalog`);
  if (seen.ids.has(id)) problems.push(`${at('id')}: duplicate id "${id}"`);
  seen.ids.add(id);
  let url: URL | undefined;
  try {
    url = new URL(String(o.url));
  } catch {
    problems.push(`${at('url')}: not a URL`);
  }
  if (url) problems.push(...guardUrl(url, at('url'), opts.allowHttpLoopback));
  const prefix = o.prefix === undefined ? id : o.prefix;
  checkPrefix(prefix, id, at, opts, seen, problems);
  const timeoutMs = o.timeout === undefined ? DEFAULT_TIMEOUT_MS : Number(o.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 50 || timeoutMs > 60_000)
    problems.push(`${at('timeout')}: milliseconds, 50 to 60000`);
  const secrets: string[] = [];
  const headers = headersOf(o.headers, at, opts, problems, secrets);
  const aliases = aliasesOf(o.aliases, at, problems);
  if (o.enabled !== undefined && typeof o.enabled !== 'boolean')
    problems.push(`${at('enabled')}: must be true or false`);
  const oauth = o.oauth === undefined ? undefined : parseOAuth(o.oauth, at, opts, problems);
  // One source of the upstream's Authorization: two would race (which one the upstream sees is an accident).
  if (o.oauth !== undefined && 'authorization' in headers)
    problems.push(`${at('headers.authorization')}: not with oauth (the token from oauth is the Authorization)`);
  const groupIssues = groupProblems(o.groups, 'groups');
  for (const [f, message] of groupIssues) problems.push(`${at(f)}: ${message}`);
  if (!url || typeof prefix !== 'string') return undefined;
  return {
    id,
    url,
    prefix,
    timeoutMs,
    enabled: o.enabled !== false,
    headers,
    ...(secrets.length > 0 && { secrets }),
    allow: namesOf(o.allow, at('allow'), problems),
    deny: namesOf(o.deny, at('deny'), problems) ?? [],
    aliases,
    ...(oauth && { oauth }),
    ...(o.groups !== undefined && !groupIssues.length && { groups: [...(o.groups as string[])] }),
  } satisfies UpstreamConfig;
}

/** The list as JSON, or the one problem that makes it no list at all. */
function listOf(raw: string): unknown[] | string {
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch (e) {
    return `UPSTREAMS is not valid JSON: ${(e as Error).message}`;
  }
  return Array.isArray(list) ? list : 'UPSTREAMS must be a JSON array of upstream objects';
}

/**
 * Each entry that validates, and the problems of those that do not (an entry's problems drop it): the
 * first MAX_ISSUES, then how many more, as the admin API lists any problems (issues.ts). A 5 MiB body
 * of two million bad entries must not make an answer, a log line or /status of a hundred megabytes.
 */
function entriesOf(list: unknown[], opts: ParseOptions): { list: UpstreamConfig[]; problems: string[] } {
  const problems: string[] = [];
  let unlisted = 0;
  const seen: Seen = { ids: new Set(), prefixes: new Set(), bareIds: new Set() };
  const out: UpstreamConfig[] = [];
  if (list.length > MAX_UPSTREAMS)
    problems.push(
      `UPSTREAMS: ${list.length} upstreams, at most ${MAX_UPSTREAMS}: UPSTREAMS[${MAX_UPSTREAMS}] and later are left out`,
    );
  list.slice(0, MAX_UPSTREAMS).forEach((item: unknown, i) => {
    const own: string[] = [];
    const entry = parseEntry(item, i, opts, seen, own);
    const room = Math.max(0, MAX_ISSUES - problems.length);
    problems.push(...own.slice(0, room));
    unlisted += Math.max(0, own.length - room);
    if (entry && !own.length) out.push(entry);
  });
  if (unlisted) problems.push(more(unlisted).message);
  // Every prefix is known only now: an upstream listed before another still keeps out of its namespace. A
  // left-out entry's prefix stays reserved, so its names never pass to an unprefixed upstream meanwhile.
  const reserved = [...seen.prefixes, ...(opts.localPrefix ? [opts.localPrefix] : [])];
  return { list: reserved.length ? out.map((u) => (u.prefix === '' ? { ...u, reserved } : u)) : out, problems };
}

/** The whole list, or UpstreamConfigError listing every problem (the admin API's check). Empty or blank: no upstreams. */
export function parseUpstreams(raw: string | undefined, opts: ParseOptions): UpstreamConfig[] {
  if (!raw || !raw.trim()) return [];
  const list = listOf(raw);
  if (typeof list === 'string') throw new UpstreamConfigError(list);
  const parsed = entriesOf(list, opts);
  if (parsed.problems.length) throw new UpstreamConfigError(`invalid UPSTREAMS:\n  ${parsed.problems.join('\n  ')}`);
  return parsed.list;
}

/**
 * The list in force at run time: every entry that validates, and the problems that left the others
 * out. A list that passed the admin API's check can stop passing later (a secret it names deleted,
 * a stricter rule after an upgrade), and an upstream is one part of the catalog: the local prompts
 * and the other upstreams keep serving while config.ts reports the problems.
 */
export function upstreamsInForce(
  raw: string | undefined,
  opts: ParseOptions,
): { list: UpstreamConfig[]; problems: string[] } {
  if (!raw || !raw.trim()) return { list: [], problems: [] };
  const list = listOf(raw);
  return typeof list === 'string' ? { list: [], problems: [list] } : entriesOf(list, opts);
}
