/**
 * The knobs of `npm run bench:fanout` (fanout.mjs); see bench/FANOUT.md for each one.
 */
import os from 'node:os';
import { envList, envNum } from '../lib/env.mjs';

export const SIZES = envList('FANOUT_SIZES', [100, 1000], 1);
export const RUNS = envNum('FANOUT_RUNS', 3, { min: 1 });
/** null = wrangler.toml's NOTIFY_COALESCE_MS, then 0 (pure fan-out). */
export const COALESCE_OVERRIDE = process.env.FANOUT_COALESCE_MS?.trim() ? envList('FANOUT_COALESCE_MS', [], 0) : null;
export const INIT_CONCURRENCY = envNum('FANOUT_INIT_CONCURRENCY', 50, { min: 1 });
export const OPEN_CONCURRENCY = envNum('FANOUT_OPEN_CONCURRENCY', 100, { min: 1 });
export const QUIESCE_MS = envNum('FANOUT_QUIESCE_MS', 1000);
export const DELIVERY_TIMEOUT_MS = envNum('FANOUT_DELIVERY_TIMEOUT_MS', 10_000, { min: 100 });
export const DUP_WINDOW_MS = envNum('FANOUT_DUP_WINDOW_MS', 2000);
export const TIMEOUT_S = envNum('FANOUT_TIMEOUT_SECONDS', 600, { min: 10 });
/**
 * Investigation knob: REGISTRY_SHARDS override (default: wrangler.toml's). Durable Object storage
 * is always Miniflare's default SQLite files under TMPDIR (in-memory objects have no SQL API,
 * which RegistryShard needs); point TMPDIR at a tmpfs to take the disk out of the picture.
 */
/**
 * Investigation knob: SESSION_RECHECK_MS override. 0 makes each session's notifications/initialized
 * ask (and so make) its Durable Object before the streams attach, so the memory delta of attaching
 * is the streams' alone.
 */
export const RECHECK_OVERRIDE = process.env.FANOUT_RECHECK_MS?.trim()
  ? envNum('FANOUT_RECHECK_MS', 0, { min: 0 })
  : null;
export const SHARDS_OVERRIDE = process.env.FANOUT_SHARDS?.trim() ? envNum('FANOUT_SHARDS', 16, { min: 1 }) : null;
/** Where the temp dir (build, Miniflare state) goes: TMPDIR as given (read before the harness repoints it). */
export const TMP_BASE = os.tmpdir();
/** Upper bounds of the phases before the change (they fail the run, never hang it). */
export const PHASE_TIMEOUT_MS = 120_000;

export const SIGNING_SECRET = 'fanout-signing-secret-not-for-production';
export const ADMIN_TOKEN = 'fanout-admin-token-not-for-production';
export const LIST_CHANGED = 'notifications/prompts/list_changed';
