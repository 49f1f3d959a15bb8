/**
 * The upstreams in force: the list set through the admin API (in KV) when
 * there is one, else the UPSTREAMS var, parsed by parse.ts and kept per
 * isolate. What one entry is: schema.ts.
 */
import { configOf } from '../../lib/config.js';
import { ownSecretNames } from '../../lib/own-secrets.js';
import { parseUpstreams } from './parse.js';
import type { UpstreamConfig } from './schema.js';

/** KV key of the upstream list set through the admin API; it overrides the UPSTREAMS var. */
export const UPSTREAMS_KEY = 'config/upstreams';
const REREAD_MS = 5_000;
const cached = new WeakMap<object, { raw: string; list: UpstreamConfig[]; readAt: number; refreshing: boolean }>();

function parseFor(env: Env, raw: string): UpstreamConfig[] {
  const cfg = configOf(env);
  return parseUpstreams(raw, {
    separator: cfg.separator,
    secrets: env as unknown as Record<string, unknown>,
    ownSecrets: ownSecretNames(env),
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
