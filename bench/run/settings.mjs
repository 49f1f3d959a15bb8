/**
 * The knobs and the workload of `npm run bench` (run.mjs): durations, rounds, connection
 * counts, and the scenarios, each a request and the targets it runs against, in the order
 * every round runs them. See bench/README.md for what each knob means.
 */
import { envConnections, envNum, envSelect } from '../lib/env.mjs';
import { MODERN, MODERN_META, rpc } from '../lib/jsonrpc.mjs';
import { initializeBody } from '../lib/mcp-session.mjs';
import { GET_ARGS, GET_PROMPT } from '../lib/prompts.mjs';
import { workerLogsMode } from '../lib/worker-logs.mjs';

export const SECONDS = envNum('BENCH_SECONDS', 5, { min: 1, integer: true });
/** 0: cold starts only (no warm targets, no load). */
export const ROUNDS = envNum('BENCH_ROUNDS', 3, { min: 0, integer: true });
export const WARMUP_SECONDS = envNum('BENCH_WARMUP_SECONDS', 1, { min: 0, integer: true });
export const COLD_STARTS = envNum('BENCH_COLD_STARTS', 3, { min: 0, integer: true });
/** Durable Object storage: 'disk' (Miniflare's default, SQLite files as under `wrangler dev`) or 'memory' (unsafeEphemeralDurableObjects). */
export const DO_STORAGE = process.env.BENCH_DO_STORAGE || 'disk';
if (!['disk', 'memory'].includes(DO_STORAGE))
  throw new Error(`BENCH_DO_STORAGE must be disk or memory, got ${JSON.stringify(DO_STORAGE)}`);
export const CONNECTIONS = envConnections('BENCH_CONNECTIONS');
/** The Workers' stdout: 'discard' (/dev/null, the default) or 'pipe' (read by this process), lib/worker-logs.mjs. */
export const WORKER_LOGS = workerLogsMode();

export const SIGNING_SECRET = 'bench-signing-secret-not-for-production';

export const BODY = {
  list: rpc('prompts/list'),
  modernList: rpc('prompts/list', { _meta: MODERN_META }),
  get: rpc('prompts/get', { name: GET_PROMPT, arguments: GET_ARGS }),
  ping: rpc('ping'),
  initialize: initializeBody({ name: 'promptgate-bench', version: '1.0.0' }),
};

const BOTH = ['ceiling', 'gateway', 'peer'];
/** Scenarios in the order each round runs them; per scenario the targets run in the listed order. */
const ALL_SCENARIOS = [
  { id: 'list', label: 'prompts/list (first page), in session', body: BODY.list, session: true, targets: BOTH },
  {
    id: 'get',
    label: `prompts/get ${GET_PROMPT} (${Object.keys(GET_ARGS).length} args), in session`,
    body: BODY.get,
    session: true,
    targets: BOTH,
  },
  { id: 'ping', label: 'ping, in session', body: BODY.ping, session: true, targets: BOTH },
  // 2026-07-28: no session, the envelope in the body and the standard headers; compared with `list` (legacy, in session).
  {
    id: 'modern-list',
    label: 'prompts/list, 2026-07-28 (stateless)',
    body: BODY.modernList,
    session: false,
    headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'prompts/list' },
    targets: ['ceiling', 'gateway'],
  },
  // The CDN listing: what a browser, dashboard or CDN pulls (no JSON-RPC, no session).
  {
    id: 'cached-get',
    label: 'GET /prompts (CDN listing, first page)',
    method: 'GET',
    path: '/prompts',
    session: false,
    targets: ['ceiling', 'gateway'],
  },
  {
    id: 'session-check',
    label: 'prompts/list, session check: memo (RECHECK default) vs DO round trip (RECHECK 0)',
    body: BODY.list,
    session: true,
    targets: ['ceiling', 'gateway', 'gateway-recheck0'],
  },
  // Its own gateway instance (same settings), so the thousands of sessions it creates do not
  // weigh on the other scenarios' instance (and not on one side of the session-check pair).
  {
    id: 'initialize',
    label: 'initialize (session setup: a new signed session id each)',
    body: BODY.initialize,
    session: false,
    targets: ['ceiling', 'gateway-init', 'peer'],
  },
];
export const SCENARIOS = envSelect('BENCH_SCENARIOS', ALL_SCENARIOS);
export const hasScenario = (id) => SCENARIOS.some((s) => s.id === id);

export const MEASUREMENTS_PER_ROUND = SCENARIOS.reduce((n, s) => n + s.targets.length, 0) * CONNECTIONS.length;
const WARMUPS = new Set(SCENARIOS.flatMap((s) => s.targets.map((t) => `${t}|${s.id}`))).size;
export const ESTIMATE_S =
  ROUNDS * MEASUREMENTS_PER_ROUND * (SECONDS + 1.5) + WARMUPS * (WARMUP_SECONDS + 1) + (COLD_STARTS + 1) * 5 + 90;
export const TIMEOUT_S = envNum('BENCH_TIMEOUT_SECONDS', Math.max(900, Math.ceil(ESTIMATE_S * 1.5)), {
  min: 10,
  integer: false,
});
