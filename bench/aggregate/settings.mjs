/**
 * The knobs of `npm run bench:aggregate` (aggregate.mjs) and its targets; see
 * bench/AGGREGATE.md. The upstream child processes (targets/upstream.mjs) read the same
 * env, so they agree with the harness on delay and prompt count.
 */
import { envConnections, envNum } from '../lib/env.mjs';
import { rpc } from '../lib/jsonrpc.mjs';

export const SECONDS = envNum('AGG_SECONDS', 5, { min: 1 });
export const ROUNDS = envNum('AGG_ROUNDS', 3, { min: 1 });
export const WARMUP_SECONDS = envNum('AGG_WARMUP_SECONDS', 1, { min: 0 });
export const COLD_RUNS = envNum('AGG_COLD_RUNS', 5, { min: 1 });
/** Cold runs done first and left out of the medians (the process's first Miniflare instance pays one-off costs). */
export const COLD_DISCARD = envNum('AGG_COLD_DISCARD', 1, { min: 0 });
export const DELAY_MS = envNum('AGG_UPSTREAM_DELAY_MS', 50, { min: 0 });
export const UPSTREAM_PROMPTS = envNum('AGG_UPSTREAM_PROMPTS', 10, { min: 1 });
export const UPSTREAM_COUNT = envNum('AGG_UPSTREAMS', 3, { min: 1 });
export const UPSTREAM_TIMEOUT_MS = envNum('AGG_UPSTREAM_TIMEOUT_MS', 2000, { min: 50 });
export const PAGE_SIZE = envNum('AGG_PAGE_SIZE', 100, { min: 1 });
export const CONNECTIONS = envConnections('AGG_CONNECTIONS');
export const COLD_TARGET_MS = 15;
export const WARM_TARGET_RATIO = 0.8;
export const ESTIMATE_S =
  90 + (COLD_RUNS + COLD_DISCARD) * 6 + ROUNDS * CONNECTIONS.length * 2 * (SECONDS + 1.5) + 2 * (WARMUP_SECONDS + 1);
export const TIMEOUT_S = envNum('AGG_TIMEOUT_SECONDS', Math.max(600, Math.ceil(ESTIMATE_S * 1.5)), { min: 10 });

export const SIGNING_SECRET = 'bench-signing-secret-not-for-production';
export const ADMIN_TOKEN = 'bench-admin-token-not-for-production';
export const LIST_BODY = rpc('prompts/list');
