/**
 * The upstreams in force: the list set through the admin API (in KV) when
 * there is one, else the UPSTREAMS var, parsed by parse.ts and kept per
 * isolate. An entry that does not validate is left out, logged once per
 * isolate and shown in /status (`upstreamProblems`), never the whole
 * endpoint's failure. What one entry is: schema.ts.
 */
import { configOf } from '../../lib/config.js';
import { log } from '../../lib/log.js';
import { ownSecretNames } from '../../lib/own-secrets.js';
import { parseUpstreams, upstreamsInForce, type ParseOptions } from './parse.js';
import type { UpstreamConfig } from './schema.js';

/** KV key of the upstream list set through the admin API; it overrides the UPSTREAMS var. */
export const UPSTREAMS_KEY = 'config/upstreams';
const REREAD_MS = 5_000;
interface InForce {
  raw: string;
  list: UpstreamConfig[];
  problems: string[];
  readAt: number;
  refreshing: boolean;
}
const cached = new WeakMap<object, InForce>();

function optionsFor(env: Env): ParseOptions {
  const cfg = configOf(env);
  return {
    separator: cfg.separator,
    secrets: env as unknown as Record<string, unknown>,
    ownSecrets: ownSecretNames(env),
    allowHttpLoopback: cfg.allowHttpLoopback,
    localPrefix: cfg.localPrefix,
  };
}

/** Validates a whole list (for the admin API, which stores none with a problem); throws UpstreamConfigError listing every problem. */
export function validateUpstreams(env: Env, raw: string): UpstreamConfig[] {
  return parseUpstreams(raw, optionsFor(env));
}

/**
 * The upstreams in force: the admin-set list in KV when there is one,
 * otherwise the UPSTREAMS var. Re-read in the background at most every 5 s per
 * isolate (or now, with `fresh`: writers and refreshes use that; the request
 * path does not, and never waits on it once the isolate has a copy). The
 * admin API stores no list with a problem, but a stored list can gain one
 * later (a secret it names deleted), and the var can have one from the start.
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
  const parsed = hit && hit.raw === raw ? hit : upstreamsInForce(raw, optionsFor(env));
  // Once per isolate and list: a problem names fields and secrets by name, never a value (parse.ts).
  if (parsed !== hit && parsed.problems.length)
    log.error('upstreams left out: their configuration is invalid', {
      source: stored === null ? 'UPSTREAMS var' : 'admin list',
      problems: parsed.problems,
      fix: 'correct the list (PUT /admin/upstreams or the UPSTREAMS var) or set the secrets it names',
    });
  cached.set(env, { raw, list: parsed.list, problems: parsed.problems, readAt: Date.now(), refreshing: false });
  return parsed.list;
}

/** Why entries of the list in force were left out (empty: none were), as of the isolate's last read. */
export async function upstreamProblems(env: Env): Promise<string[]> {
  await upstreamConfigs(env);
  return cached.get(env)?.problems ?? [];
}

/** Forget the isolate's copy (after an admin change). */
export function forgetUpstreamConfig(env: Env): void {
  cached.delete(env);
}
