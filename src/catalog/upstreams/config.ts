/**
 * Upstream MCP servers: configuration, validated once per isolate.
 *
 * Configured as JSON in the UPSTREAMS var. Every problem is reported with
 * its field path ("UPSTREAMS[1].url: ..."), and a bad configuration fails
 * the gateway loudly rather than silently dropping an upstream. Header
 * values may name Worker secrets as ${SECRET_NAME}; they are resolved here
 * and never logged. An `oauth` entry (client-credentials grant, oauth.ts)
 * names its client secret the same way, by the Worker secret's name.
 *
 * SSRF guard (the upstream URL and an oauth tokenUrl alike): https only (http only to loopback, and only when
 * UPSTREAM_ALLOW_HTTP_LOOPBACK is set, as in local development), and no
 * private, loopback or link-local address in any spelling (ssrf.ts).
 * Redirects are never followed (fetch-guard.ts).
 */
import { configOf } from '../../lib/config.js';
import { groupProblems, NAME_PATTERN } from '../validate.js';
import { isLoopbackHost, isPrivateHost } from './ssrf.js';

export { isLoopbackHost, isPrivateHost } from './ssrf.js';

export interface UpstreamConfig {
  id: string;
  url: URL;
  /** "" when mounted without a prefix. */
  prefix: string;
  timeoutMs: number;
  enabled: boolean;
  headers: Record<string, string>;
  allow: string[] | null;
  deny: string[];
  /** Original upstream name → name to publish (before prefixing). */
  aliases: Record<string, string>;
  /** OAuth 2.0 client-credentials grant for this upstream's bearer token (oauth.ts). */
  oauth?: UpstreamOAuth;
  /** Who sees this upstream's prompts (every one of them); undefined: everyone. */
  groups?: string[];
}

export interface UpstreamOAuth {
  tokenUrl: URL;
  clientId: string;
  /** The secret's value, resolved from the Worker secret the configuration names; never shown anywhere. */
  clientSecret: string;
  /** How the client authenticates at the token endpoint (default client_secret_basic). */
  authMethod: 'client_secret_basic' | 'client_secret_post';
  scope?: string;
  /** RFC 8707 resource indicator sent with the token request. */
  resource?: string;
}

export class UpstreamConfigError extends Error {}

export const DEFAULT_TIMEOUT_MS = 5_000;
const ID = /^[a-z0-9][a-z0-9_-]{0,31}$/;

function globMatcher(pattern: string): RegExp {
  return new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );
}

export function nameAllowed(u: UpstreamConfig, name: string): boolean {
  if (u.deny.some((p) => globMatcher(p).test(name))) return false;
  return u.allow === null || u.allow.some((p) => globMatcher(p).test(name));
}

/** The SSRF guard's verdict on a configured URL: its problems, none when it may be called. */
function guardUrl(url: URL, at: string, allowHttpLoopback: boolean): string[] {
  const problems: string[] = [];
  const loopback = isLoopbackHost(url.hostname);
  if (url.protocol === 'http:' && !(loopback && allowHttpLoopback))
    problems.push(`${at}: must be https (http only to loopback in development)`);
  else if (url.protocol !== 'https:' && url.protocol !== 'http:') problems.push(`${at}: must be https`);
  if (isPrivateHost(url.hostname) && !(loopback && allowHttpLoopback))
    problems.push(`${at}: private, loopback and link-local addresses are not allowed`);
  if (url.username || url.password) problems.push(`${at}: credentials belong in headers, not the URL`);
  return problems;
}

const isUrl = (v: string) => {
  try {
    return Boolean(new URL(v));
  } catch {
    return false;
  }
};
const SECRET_NAME = /^[A-Z][A-Z0-9_]{0,127}$/;
const AUTH_METHODS = ['client_secret_basic', 'client_secret_post'] as const;

/**
 * An upstream's `oauth` entry. Problems name fields and secret names, never
 * a value: a secret pasted where its name belongs is not echoed back.
 */
function parseOAuth(
  v: unknown,
  at: (f: string) => string,
  opts: { secrets: Record<string, unknown>; allowHttpLoopback: boolean },
  problems: string[],
): UpstreamOAuth | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    problems.push(`${at('oauth')}: must be an object with tokenUrl, clientId and clientSecret`);
    return undefined;
  }
  const o = v as Record<string, unknown>;
  const before = problems.length;
  let tokenUrl: URL | undefined;
  try {
    tokenUrl = new URL(String(o.tokenUrl));
    problems.push(...guardUrl(tokenUrl, at('oauth.tokenUrl'), opts.allowHttpLoopback));
  } catch {
    problems.push(`${at('oauth.tokenUrl')}: required, a URL`);
  }
  if (typeof o.clientId !== 'string' || !o.clientId) problems.push(`${at('oauth.clientId')}: required, a string`);
  let clientSecret = '';
  if (typeof o.clientSecret !== 'string' || !SECRET_NAME.test(o.clientSecret))
    problems.push(`${at('oauth.clientSecret')}: required, the NAME of a Worker secret (A-Z 0-9 _), not the secret`);
  else {
    const secret = opts.secrets[o.clientSecret];
    if (typeof secret !== 'string' || !secret)
      problems.push(`${at('oauth.clientSecret')}: secret ${o.clientSecret} is not set`);
    else clientSecret = secret;
  }
  if (o.scope !== undefined && typeof o.scope !== 'string') problems.push(`${at('oauth.scope')}: must be a string`);
  if (o.resource !== undefined && (typeof o.resource !== 'string' || !isUrl(o.resource)))
    problems.push(`${at('oauth.resource')}: must be an absolute URL`);
  const authMethod = o.authMethod ?? 'client_secret_basic';
  if (!AUTH_METHODS.includes(authMethod as (typeof AUTH_METHODS)[number]))
    problems.push(`${at('oauth.authMethod')}: must be ${AUTH_METHODS.join(' or ')}`);
  const known = new Set(['tokenUrl', 'clientId', 'clientSecret', 'scope', 'resource', 'authMethod']);
  for (const k of Object.keys(o)) if (!known.has(k)) problems.push(`${at(`oauth.${k}`)}: unknown field`);
  if (problems.length > before || !tokenUrl) return undefined;
  return {
    tokenUrl,
    clientId: o.clientId as string,
    clientSecret,
    authMethod: authMethod as UpstreamOAuth['authMethod'],
    ...(typeof o.scope === 'string' && o.scope && { scope: o.scope }),
    ...(typeof o.resource === 'string' && { resource: o.resource }),
  };
}

export function parseUpstreams(
  raw: string | undefined,
  opts: { separator: string; secrets: Record<string, unknown>; allowHttpLoopback: boolean; localPrefix?: string },
): UpstreamConfig[] {
  if (!raw || !raw.trim()) return [];
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch (e) {
    throw new UpstreamConfigError(`UPSTREAMS is not valid JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(list)) throw new UpstreamConfigError('UPSTREAMS must be a JSON array of upstream objects');
  const problems: string[] = [];
  const seen = new Set<string>();
  const prefixes = new Set<string>();
  const out: UpstreamConfig[] = [];
  list.forEach((item: unknown, i) => {
    const at = (f: string) => `UPSTREAMS[${i}]${f ? `.${f}` : ''}`;
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      return void problems.push(`${at('')}: must be an object`);
    const o = item as Record<string, unknown>;
    const id = o.id;
    if (typeof id !== 'string' || !ID.test(id))
      return void problems.push(`${at('id')}: required, lowercase a-z 0-9 _ - (at most 32)`);
    if (seen.has(id)) problems.push(`${at('id')}: duplicate id "${id}"`);
    seen.add(id);
    let url: URL | undefined;
    try {
      url = new URL(String(o.url));
    } catch {
      problems.push(`${at('url')}: not a URL`);
    }
    if (url) problems.push(...guardUrl(url, at('url'), opts.allowHttpLoopback));
    const prefix = o.prefix === undefined ? id : o.prefix;
    // "" mounts the upstream without a prefix (migrations): its names are published as they are, and a local prompt wins a clash.
    if (prefix === '') {
      // nothing to check: several upstreams may be unprefixed (the first listed keeps a contested name)
    } else if (typeof prefix !== 'string' || !NAME_PATTERN.test(prefix) || prefix.includes(opts.separator))
      problems.push(
        `${at('prefix')}: must use A-Z a-z 0-9 _ . - and must not contain the separator "${opts.separator}"`,
      );
    else if (prefixes.has(prefix)) problems.push(`${at('prefix')}: duplicate prefix "${prefix}"`);
    else if (prefix === opts.localPrefix) problems.push(`${at('prefix')}: "${prefix}" is the LOCAL_PREFIX`);
    else prefixes.add(prefix);
    const timeoutMs = o.timeout === undefined ? DEFAULT_TIMEOUT_MS : Number(o.timeout);
    if (!Number.isInteger(timeoutMs) || timeoutMs < 50 || timeoutMs > 60_000)
      problems.push(`${at('timeout')}: milliseconds, 50 to 60000`);
    const headers: Record<string, string> = Object.create(null) as Record<string, string>;
    if (o.headers !== undefined) {
      if (typeof o.headers !== 'object' || o.headers === null)
        problems.push(`${at('headers')}: must be an object of strings`);
      else
        for (const [k, v] of Object.entries(o.headers)) {
          if (typeof v !== 'string') {
            problems.push(`${at(`headers.${k}`)}: must be a string`);
            continue;
          }
          headers[k.toLowerCase()] = v.replace(/\$\{([A-Z0-9_]+)\}/g, (_m, name: string) => {
            const secret = opts.secrets[name];
            if (typeof secret !== 'string') problems.push(`${at(`headers.${k}`)}: secret ${name} is not set`);
            return typeof secret === 'string' ? secret : '';
          });
        }
    }
    const strings = (v: unknown, f: string): string[] | null => {
      if (v === undefined) return null;
      if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v;
      problems.push(`${at(f)}: must be a list of names (* and ? allowed)`);
      return null;
    };
    // Null-prototype: a name such as `__proto__` or `constructor` is an entry like any other.
    const aliases: Record<string, string> = Object.create(null) as Record<string, string>;
    if (o.aliases !== undefined) {
      if (typeof o.aliases !== 'object' || o.aliases === null)
        problems.push(`${at('aliases')}: must map upstream names to new names`);
      else
        for (const [from, to] of Object.entries(o.aliases)) {
          if (typeof to !== 'string' || !NAME_PATTERN.test(to))
            problems.push(`${at(`aliases.${from}`)}: must be a name (A-Z a-z 0-9 _ . -)`);
          else aliases[from] = to;
        }
    }
    if (o.enabled !== undefined && typeof o.enabled !== 'boolean')
      problems.push(`${at('enabled')}: must be true or false`);
    const oauth = o.oauth === undefined ? undefined : parseOAuth(o.oauth, at, opts, problems);
    // One source of the upstream's Authorization: two would race (which one the upstream sees is an accident).
    if (o.oauth !== undefined && 'authorization' in headers)
      problems.push(`${at('headers.authorization')}: not with oauth (the token from oauth is the Authorization)`);
    const groupIssues = groupProblems(o.groups, 'groups');
    for (const [f, message] of groupIssues) problems.push(`${at(f)}: ${message}`);
    if (url && typeof prefix === 'string')
      out.push({
        id,
        url,
        prefix,
        timeoutMs,
        enabled: o.enabled !== false,
        headers,
        allow: strings(o.allow, 'allow'),
        deny: strings(o.deny, 'deny') ?? [],
        aliases,
        ...(oauth && { oauth }),
        ...(o.groups !== undefined && !groupIssues.length && { groups: [...(o.groups as string[])] }),
      });
  });
  if (problems.length) throw new UpstreamConfigError(`invalid UPSTREAMS:\n  ${problems.join('\n  ')}`);
  return out;
}

/** KV key of the upstream list set through the admin API; it overrides the UPSTREAMS var. */
export const UPSTREAMS_KEY = 'config/upstreams';
const REREAD_MS = 5_000;
const cached = new WeakMap<object, { raw: string; list: UpstreamConfig[]; readAt: number; refreshing: boolean }>();

function parseFor(env: Env, raw: string): UpstreamConfig[] {
  const cfg = configOf(env);
  return parseUpstreams(raw, {
    separator: cfg.separator,
    secrets: env as unknown as Record<string, unknown>,
    allowHttpLoopback: cfg.allowHttpLoopback,
    localPrefix: cfg.localPrefix,
  });
}

/** Validates a list the way start-up does (for the admin API); throws UpstreamConfigError listing every problem. */
export function validateUpstreams(env: Env, raw: string): UpstreamConfig[] {
  return parseFor(env, raw);
}

/**
 * The upstreams in force: the admin-set list in KV when there is one,
 * otherwise the UPSTREAMS var. Re-read in the background at most every 5 s per
 * isolate (or now, with `fresh`: writers and refreshes use that; the request
 * path does not, and never waits on it once the isolate has a copy). A bad
 * stored list cannot happen (the admin API validates before storing); a bad
 * var fails loudly.
 */
export async function upstreamConfigs(env: Env, fresh = false): Promise<UpstreamConfig[]> {
  return (!fresh && cachedUpstreamConfigs(env)) || load(env);
}

/**
 * The isolate's copy without waiting (undefined before the first read):
 * stale-while-revalidate, so the request path never waits on this read once
 * the isolate has a copy, and a hot path needs no promise at all.
 */
export function cachedUpstreamConfigs(env: Env): UpstreamConfig[] | undefined {
  const hit = cached.get(env);
  if (!hit) return undefined;
  if (Date.now() - hit.readAt >= REREAD_MS && !hit.refreshing) {
    hit.refreshing = true;
    void load(env).finally(() => (hit.refreshing = false));
  }
  return hit.list;
}

async function load(env: Env): Promise<UpstreamConfig[]> {
  const stored = await env.PROMPTS.get(UPSTREAMS_KEY);
  const raw = stored ?? configOf(env).upstreamsJson;
  const hit = cached.get(env);
  const list = hit && hit.raw === raw ? hit.list : parseFor(env, raw);
  cached.set(env, { raw, list, readAt: Date.now(), refreshing: false });
  return list;
}

/** Forget the isolate's copy (after an admin change). */
export function forgetUpstreamConfig(env: Env): void {
  cached.delete(env);
}
