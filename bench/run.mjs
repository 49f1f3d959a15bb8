/**
 * `npm run bench`: reproducible load benchmark of the promptgate Worker.
 *
 * Builds the gateway bundle with `wrangler deploy --dry-run`, runs it on
 * Miniflare (the package API, not `wrangler dev`) next to a bare Hono
 * CEILING Worker and the official SDK McpServer PEER (Node, stateless), and
 * loads all of them on loopback with autocannon in interleaved rounds.
 * Prints a markdown table of medians and writes bench/out/latest.json.
 *
 * Knobs (env): BENCH_SECONDS, BENCH_ROUNDS, BENCH_CONNECTIONS, BENCH_SCENARIOS,
 * BENCH_WARMUP_SECONDS, BENCH_COLD_STARTS, BENCH_TIMEOUT_SECONDS (see README.md).
 *
 * Everything it starts (Miniflare instances, the peer process, the temp dir)
 * is disposed on exit, on error, on SIGINT/SIGTERM and on the global timeout.
 */
import assert from 'node:assert/strict';
import { execSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { Miniflare } from 'miniflare';
import {
  BENCH_DIR,
  JSON_HEADERS,
  OUT_DIR,
  PROTOCOL,
  buildCeiling,
  buildGateway,
  ceilingOptions,
  createHarness,
  envConnections,
  envNum,
  fmtInt,
  gatewayBaseOptions,
  median,
  percentile,
  pkgVersion,
  readWranglerConfig as readWranglerToml,
} from './lib.mjs';
import { snapshotEntries } from '../src/catalog/store.ts';
import { GET_ARGS, GET_PROMPT, PROMPTS, getResult, listResult, snapshot } from './prompts.mjs';

// ---------------------------------------------------------------- settings

const SECONDS = envNum('BENCH_SECONDS', 5, { min: 1, integer: true });
const ROUNDS = envNum('BENCH_ROUNDS', 3, { min: 1, integer: true });
const WARMUP_SECONDS = envNum('BENCH_WARMUP_SECONDS', 1, { min: 0, integer: true });
const COLD_STARTS = envNum('BENCH_COLD_STARTS', 3, { min: 0, integer: true });
/** Durable Object storage: 'disk' (Miniflare's default, SQLite files as under `wrangler dev`) or 'memory' (unsafeEphemeralDurableObjects). */
const DO_STORAGE = process.env.BENCH_DO_STORAGE || 'disk';
if (!['disk', 'memory'].includes(DO_STORAGE)) throw new Error(`BENCH_DO_STORAGE must be disk or memory, got ${JSON.stringify(DO_STORAGE)}`);
const CONNECTIONS = envConnections('BENCH_CONNECTIONS');

const SIGNING_SECRET = 'bench-signing-secret-not-for-production';

const rpc = (method, params) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) });
const MODERN = '2026-07-28';
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };
const BODY = {
  list: rpc('prompts/list'),
  modernList: rpc('prompts/list', { _meta: MODERN_META }),
  get: rpc('prompts/get', { name: GET_PROMPT, arguments: GET_ARGS }),
  ping: rpc('ping'),
  initialize: rpc('initialize', { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'promptgate-bench', version: '1.0.0' } }),
};
const BASE_HEADERS = JSON_HEADERS;

/** Scenarios in the order each round runs them; per scenario the targets run in the listed order. */
const ALL_SCENARIOS = [
  { id: 'list', label: 'prompts/list (first page), in session', body: BODY.list, session: true, targets: ['ceiling', 'gateway', 'peer'] },
  { id: 'get', label: `prompts/get ${GET_PROMPT} (${Object.keys(GET_ARGS).length} args), in session`, body: BODY.get, session: true, targets: ['ceiling', 'gateway', 'peer'] },
  { id: 'ping', label: 'ping, in session', body: BODY.ping, session: true, targets: ['ceiling', 'gateway', 'peer'] },
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
  { id: 'cached-get', label: 'GET /prompts (CDN listing, first page)', method: 'GET', path: '/prompts', session: false, targets: ['ceiling', 'gateway'] },
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
    label: 'initialize (session setup: new session + DO write each)',
    body: BODY.initialize,
    session: false,
    targets: ['ceiling', 'gateway-init', 'peer'],
  },
];
const SCENARIOS = (() => {
  const want = process.env.BENCH_SCENARIOS?.split(',').map((s) => s.trim()).filter(Boolean);
  if (!want?.length) return ALL_SCENARIOS;
  for (const id of want) if (!ALL_SCENARIOS.some((s) => s.id === id)) throw new Error(`BENCH_SCENARIOS: unknown scenario "${id}"`);
  return ALL_SCENARIOS.filter((s) => want.includes(s.id));
})();

const MEASUREMENTS_PER_ROUND = SCENARIOS.reduce((n, s) => n + s.targets.length, 0) * CONNECTIONS.length;
const WARMUPS = new Set(SCENARIOS.flatMap((s) => s.targets.map((t) => `${t}|${s.id}`))).size;
const ESTIMATE_S = ROUNDS * MEASUREMENTS_PER_ROUND * (SECONDS + 1.5) + WARMUPS * (WARMUP_SECONDS + 1) + COLD_STARTS * 5 + 90;
const TIMEOUT_S = envNum('BENCH_TIMEOUT_SECONDS', Math.max(900, Math.ceil(ESTIMATE_S * 1.5)), { min: 10, integer: false });

// ---------------------------------------------------------------- lifecycle

const h = createHarness({ name: 'bench', timeoutS: TIMEOUT_S, timeoutVar: 'BENCH_TIMEOUT_SECONDS' });
const { log, onCleanup } = h;

// ---------------------------------------------------------------- helpers

async function post(url, body, headers) {
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, ms: performance.now() - t0 };
}

/** A 200 with a JSON-RPC result (not an error); returns the parsed result. */
function expectResult(r, what) {
  if (r.status !== 200) throw new Error(`${what}: HTTP ${r.status}: ${r.text.slice(0, 500)}`);
  let msg;
  try {
    msg = JSON.parse(r.text);
  } catch {
    throw new Error(`${what}: body is not JSON: ${r.text.slice(0, 500)}`);
  }
  if (msg.error || !('result' in msg)) throw new Error(`${what}: no JSON-RPC result: ${r.text.slice(0, 500)}`);
  return msg.result;
}

// ---------------------------------------------------------------- targets

/** wrangler.toml (lib.mjs), checked for the bindings this bench relies on. */
async function readWranglerConfig() {
  const wcfg = await readWranglerToml(h);
  assert.ok(wcfg.kv.includes('PROMPTS'), 'wrangler.toml must bind the PROMPTS KV namespace');
  assert.deepEqual(wcfg.dos.SESSIONS, { className: 'SessionObject', useSQLite: true }, 'wrangler.toml must bind SESSIONS to the SQLite-backed SessionObject');
  return wcfg;
}

function gatewayOptions(build, wcfg, overrides = {}) {
  return {
    ...gatewayBaseOptions(build, wcfg, 'bench'),
    unsafeEphemeralDurableObjects: DO_STORAGE === 'memory',
    bindings: { ...wcfg.vars, SIGNING_SECRET, ...overrides },
  };
}

// ---------------------------------------------------------------- CPU per request

/**
 * CPU time of a target's process (utime + stime from /proc, all threads), so each
 * measurement also reports the target's own CPU per request: unlike req/s it does not
 * depend on how much of the 2 cores the load generator took in that interval.
 * Linux only; elsewhere the column stays empty.
 */
const CLK_TCK = (() => {
  try {
    return Number(execSync('getconf CLK_TCK', { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

function cpuTicks(pid) {
  if (!pid) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/** workerd processes started by this process (Miniflare's runtime), by pid. */
function workerdChildren() {
  try {
    return new Set(
      readdirSync('/proc')
        .filter((p) => /^\d+$/.test(p))
        .filter((p) => {
          try {
            return readFileSync(`/proc/${p}/comm`, 'utf8').trim() === 'workerd' && readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ')[1] === String(process.pid);
          } catch {
            return false;
          }
        })
        .map(Number),
    );
  } catch {
    return new Set();
  }
}

/** Starts a Miniflare instance, registered for disposal. Start them one at a time: the new workerd pid is how its CPU is found. */
async function startMiniflare(options, name) {
  const before = workerdChildren();
  const mf = new Miniflare(options);
  const untrack = onCleanup(name, () => mf.dispose());
  const url = await mf.ready;
  const pid = [...workerdChildren()].find((p) => !before.has(p));
  return {
    mf,
    pid,
    url: new URL('/mcp', url).href,
    dispose: async () => {
      untrack();
      await mf.dispose();
    },
  };
}

async function seed(mf) {
  const kv = await mf.getKVNamespace('PROMPTS');
  for (const { key, value } of snapshotEntries(snapshot())) await kv.put(key, value);
}

async function openSession(url) {
  const r = await post(url, BODY.initialize, BASE_HEADERS);
  const result = expectResult(r, 'initialize');
  const sid = r.headers.get('mcp-session-id');
  if (!sid) throw new Error('initialize: no mcp-session-id header');
  assert.equal(result.protocolVersion, PROTOCOL);
  return sid;
}

async function startPeer() {
  const { child, port } = await h.startPortChild([join(BENCH_DIR, 'peer.mjs')], 'peer');
  return { url: `http://127.0.0.1:${port}/mcp`, pid: child.pid };
}

// ---------------------------------------------------------------- correctness

const samePrompts = (r) => {
  assert.ok(Array.isArray(r.prompts), 'result.prompts is a list');
  assert.equal(r.prompts.length, 20, 'first page holds all 20 prompts');
  assert.deepEqual(
    r.prompts.map((p) => p.name),
    PROMPTS.map((p) => p.name),
  );
  for (const [i, p] of r.prompts.entries()) assert.equal(p.arguments?.length, PROMPTS[i].arguments.length, `${p.name}: argument count`);
  assert.equal(r.nextCursor, undefined, 'no second page');
};

/** What each scenario must answer, per kind of target. */
const CHECKS = {
  ceiling: (result) => assert.deepEqual(result, listResult()),
  list: { gateway: (r) => (samePrompts(r), assert.deepEqual(r, listResult())), peer: samePrompts },
  get: { gateway: (r) => assert.deepEqual(r, getResult()), peer: (r) => assert.deepEqual(r, getResult()) },
  ping: { gateway: (r) => assert.deepEqual(r, {}), peer: (r) => assert.deepEqual(r, {}) },
  initialize: {
    gateway: (r) => (assert.equal(r.protocolVersion, PROTOCOL), assert.ok(r.capabilities?.prompts)),
    peer: (r) => (assert.equal(r.protocolVersion, PROTOCOL), assert.ok(r.capabilities?.prompts)),
  },
};
CHECKS['session-check'] = CHECKS.list;
const TTL_MS = () => Number(WCFG.vars.LIST_TTL_MS ?? 60_000);
CHECKS['modern-list'] = {
  gateway: (r) => {
    samePrompts(r);
    assert.equal(r.resultType, 'complete');
    assert.equal(r.ttlMs, TTL_MS());
    assert.equal(r.cacheScope, 'public');
  },
};
/** The GET /prompts page (not JSON-RPC): the list result plus its cache hints. */
const getPage = () => ({ ttlMs: TTL_MS(), cacheScope: 'public', ...listResult() });
CHECKS['cached-get'] = { gateway: (r) => (samePrompts(r), assert.deepEqual(r, getPage())), ceiling: (r) => assert.deepEqual(r, getPage()) };
let WCFG;

function requestFor(scenario, target) {
  if (scenario.method === 'GET') return { method: 'GET', url: new URL(scenario.path, target.url).href, headers: { accept: 'application/json' } };
  const headers = { ...BASE_HEADERS, ...scenario.headers };
  if (scenario.session) {
    headers['mcp-protocol-version'] = PROTOCOL;
    if (target.sessionId) headers['mcp-session-id'] = target.sessionId;
  }
  return { method: 'POST', url: target.url, headers, body: scenario.body };
}

async function send(req) {
  if (req.method === 'POST') return post(req.url, req.body, req.headers);
  const res = await fetch(req.url, { headers: req.headers, signal: AbortSignal.timeout(30_000) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/**
 * Sends the scenario's request twice and checks both answers; returns the
 * body, which autocannon then expects byte for byte on every response.
 */
async function verify(scenario, target) {
  const req = requestFor(scenario, target);
  const what = `${scenario.id} on ${target.id}`;
  const bodies = [];
  for (let i = 0; i < 2; i++) {
    const r = await send(req);
    const result = scenario.method === 'GET' ? (assert.equal(r.status, 200, `${what}: HTTP ${r.status}`), JSON.parse(r.text)) : expectResult(r, what);
    try {
      if (target.kind === 'ceiling' && scenario.method !== 'GET') CHECKS.ceiling(result);
      else CHECKS[scenario.id][target.kind](result);
    } catch (e) {
      throw new Error(`${what}: wrong answer: ${e.message}`, { cause: e });
    }
    if (scenario.id === 'initialize' && target.kind === 'gateway' && !r.headers.get('mcp-session-id'))
      throw new Error(`${what}: no mcp-session-id header`);
    bodies.push(r.text);
  }
  if (bodies[0] !== bodies[1]) throw new Error(`${what}: two identical requests got different bodies; cannot check bodies under load`);
  return bodies[0];
}

// ---------------------------------------------------------------- load

/** One autocannon run; latencies recorded by us at sub-millisecond precision. */
function load({ method, url, headers, body, expectBody }, connections, seconds) {
  return new Promise((resolveLoad, reject) => {
    if (h.shuttingDown) return reject(new Error('shutting down'));
    const latencies = [];
    const instance = autocannon(
      { url, method, headers, ...(body === undefined ? {} : { body }), connections, duration: seconds, pipelining: 1, timeout: 10, expectBody },
      (err, result) => {
        h.currentLoad = null;
        if (err) return reject(err);
        latencies.sort((a, b) => a - b);
        resolveLoad({
          rps: result.requests.total / result.duration,
          total: result.requests.total,
          durationS: result.duration,
          p50: percentile(latencies, 0.5),
          p99: percentile(latencies, 0.99),
          mean: latencies.reduce((a, b) => a + b, 0) / (latencies.length || 1),
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          mismatches: result.mismatches,
          statusCodes: result.statusCodeStats,
        });
      },
    );
    h.currentLoad = instance;
    instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  });
}

function assertClean(m, what) {
  const bad = [];
  if (m.non2xx) bad.push(`${m.non2xx} non-2xx (${JSON.stringify(m.statusCodes)})`);
  if (m.mismatches) bad.push(`${m.mismatches} responses with a body other than the verified one`);
  if (m.errors) bad.push(`${m.errors} connection errors`);
  if (m.timeouts) bad.push(`${m.timeouts} timeouts`);
  if (m.total === 0) bad.push('no responses at all');
  if (bad.length) throw new Error(`${what}: ${bad.join(', ')}`);
}

// ---------------------------------------------------------------- cold start

async function coldStart(build, wcfg, i) {
  const t0 = performance.now();
  const inst = await startMiniflare(gatewayOptions(build, wcfg), `cold-start gateway #${i}`);
  const readyMs = performance.now() - t0;
  try {
    const init = await post(inst.url, BODY.initialize, BASE_HEADERS);
    const coldStartMs = performance.now() - t0;
    expectResult(init, 'cold start: initialize');
    const sid = init.headers.get('mcp-session-id');
    // Seeding happens after initialize (which reads no KV), so it is not part of the cold start.
    await seed(inst.mf);
    const h = { ...BASE_HEADERS, 'mcp-protocol-version': PROTOCOL, 'mcp-session-id': sid };
    const ping = await post(inst.url, BODY.ping, h); // first in-session request: Durable Object touch
    expectResult(ping, 'cold start: ping');
    const list1 = await post(inst.url, BODY.list, h); // first catalog use: KV read + compile + page build
    samePrompts(expectResult(list1, 'cold start: first prompts/list'));
    const list2 = await post(inst.url, BODY.list, h);
    expectResult(list2, 'cold start: second prompts/list');
    return { readyMs, coldStartMs, initializeMs: init.ms, firstPingMs: ping.ms, firstListMs: list1.ms, secondListMs: list2.ms };
  } finally {
    await inst.dispose();
  }
}

// ---------------------------------------------------------------- report

const fmtMs = (n) => (Number.isFinite(n) ? n.toFixed(2) : 'n/a');
const fmtX = (n) => (Number.isFinite(n) ? `${n.toFixed(2)}x` : 'n/a');
const kib = (b) => `${(b / 1024).toFixed(1)} KiB`;

function summarize(measurements, targets) {
  const rows = [];
  for (const s of SCENARIOS) {
    for (const c of CONNECTIONS) {
      const ceilingByRound = new Map(measurements.filter((m) => m.scenario === s.id && m.connections === c && m.target === 'ceiling').map((m) => [m.round, m]));
      for (const t of s.targets) {
        const ms = measurements.filter((m) => m.scenario === s.id && m.connections === c && m.target === t);
        const ratios = ms.map((m) => m.rps / ceilingByRound.get(m.round)?.rps).filter(Number.isFinite);
        rows.push({
          scenario: s.id,
          scenarioLabel: s.label,
          connections: c,
          target: t,
          targetLabel: targetLabel(s, targets[t]),
          rounds: ms.length,
          rps: median(ms.map((m) => m.rps)),
          p50: median(ms.map((m) => m.p50)),
          p99: median(ms.map((m) => m.p99)),
          ratioToCeiling: median(ratios),
          cpuUsPerReq: median(ms.map((m) => m.cpuUsPerReq).filter(Number.isFinite)),
          rpsPerRound: ms.map((m) => Math.round(m.rps)),
        });
      }
    }
  }
  return rows;
}

function targetLabel(scenario, target) {
  if (scenario.id === 'session-check' && target.id === 'gateway') return `gateway, SESSION_RECHECK_MS=${target.recheckMs} (memo)`;
  return target.label;
}

/** The modern list on the gateway, the numerator of the era comparisons. */
const MODERN_GW = { scenario: 'modern-list', target: 'gateway' };

/**
 * Median over rounds of num's `field` (req/s by default) ÷ den's, each pair taken in the same round;
 * num and den are { scenario, target } and may come from different scenarios.
 */
function pairedRatio(measurements, c, num, den, field = 'rps') {
  const byRound = ({ scenario, target }) =>
    new Map(measurements.filter((m) => m.scenario === scenario && m.connections === c && m.target === target).map((m) => [m.round, m[field]]));
  const a = byRound(num);
  const b = byRound(den);
  return median([...a].map(([r, v]) => v / b.get(r)).filter(Number.isFinite));
}

function table(rows) {
  const head = ['Scenario', 'Conns', 'Target', 'req/s (median)', 'p50 ms', 'p99 ms', 'x ceiling', 'CPU µs/req'];
  const lines = [`| ${head.join(' | ')} |`, '|---|---:|---|---:|---:|---:|---:|---:|'];
  for (const r of rows) {
    lines.push(
      `| ${r.scenarioLabel} | ${r.connections} | ${r.targetLabel} | ${fmtInt(r.rps)} | ${fmtMs(r.p50)} | ${fmtMs(r.p99)} | ${fmtX(r.ratioToCeiling)} | ${fmtInt(r.cpuUsPerReq)} |`,
    );
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------- main

async function main() {
  const startedAt = new Date();
  const loadavgAtStart = os.loadavg();
  log(
    `${ROUNDS} round(s) x ${MEASUREMENTS_PER_ROUND} measurements of ${SECONDS} s at ${CONNECTIONS.join('/')} connections; ` +
      `scenarios: ${SCENARIOS.map((s) => s.id).join(', ')}; estimated ${Math.round(ESTIMATE_S)} s, global timeout ${TIMEOUT_S} s`,
  );
  const tmp = h.makeTempDir('promptgate-bench-');

  // Build.
  log('building the gateway (wrangler deploy --dry-run) and the ceiling (esbuild)…');
  const [wcfg, gatewayBuild, ceilingBuild] = await Promise.all([readWranglerConfig(), buildGateway(h, tmp), buildCeiling(tmp)]);
  WCFG = wcfg;
  log(`gateway bundle ${kib(gatewayBuild.rawBytes)} raw, ${kib(gatewayBuild.gzipBytes)} gzip (built in ${Math.round(gatewayBuild.buildMs)} ms)`);

  // Cold starts, each on a fresh instance, before anything else runs.
  const cold = [];
  for (let i = 1; i <= COLD_STARTS; i++) {
    cold.push(await coldStart(gatewayBuild, wcfg, i));
    log(`cold start #${i}: ${JSON.stringify(cold.at(-1), (_k, v) => (typeof v === 'number' ? Math.round(v * 100) / 100 : v))}`);
  }
  const coldMedian = cold.length
    ? Object.fromEntries(Object.keys(cold[0]).map((k) => [k, median(cold.map((c) => c[k]))]))
    : null;

  // The long-lived targets.
  log('starting targets…');
  const ceilingBody = JSON.stringify({ jsonrpc: '2.0', id: 1, result: listResult() });
  // One at a time (see startMiniflare); the peer is a separate Node process.
  const peerStarting = startPeer();
  const ceiling = await startMiniflare(ceilingOptions(ceilingBuild, wcfg, { CEILING_BODY: ceilingBody, CEILING_GET_BODY: JSON.stringify(getPage()) }), 'ceiling');
  const gateway = await startMiniflare(gatewayOptions(gatewayBuild, wcfg), 'gateway');
  const gateway0 = await startMiniflare(gatewayOptions(gatewayBuild, wcfg, { SESSION_RECHECK_MS: '0' }), 'gateway (SESSION_RECHECK_MS=0)');
  const gatewayInit = await startMiniflare(gatewayOptions(gatewayBuild, wcfg), 'gateway (initialize)');
  const peer = await peerStarting;
  await Promise.all([seed(gateway.mf), seed(gateway0.mf), seed(gatewayInit.mf)]);
  const recheckDefault = wcfg.vars.SESSION_RECHECK_MS ?? '2000'; // src/lib/config.ts falls back to 2000
  if (!(Number(recheckDefault) > 0)) throw new Error(`the session-check comparison needs SESSION_RECHECK_MS > 0 in wrangler.toml, got ${recheckDefault}`);
  const targets = {
    ceiling: { id: 'ceiling', kind: 'ceiling', label: 'ceiling (bare Hono Worker, fixed response)', url: ceiling.url },
    gateway: { id: 'gateway', kind: 'gateway', label: 'gateway', url: gateway.url, sessionId: await openSession(gateway.url) },
    'gateway-recheck0': {
      id: 'gateway-recheck0',
      kind: 'gateway',
      label: 'gateway, SESSION_RECHECK_MS=0 (DO every request)',
      url: gateway0.url,
      sessionId: await openSession(gateway0.url),
    },
    'gateway-init': { id: 'gateway-init', kind: 'gateway', label: 'gateway', url: gatewayInit.url },
    peer: { id: 'peer', kind: 'peer', label: 'SDK McpServer (Node, stateless)', url: peer.url },
  };
  // The ceiling gets the same request bytes as the gateway (session id included).
  targets.ceiling.sessionId = targets.gateway.sessionId;
  targets.gateway.recheckMs = recheckDefault;
  for (const [t, inst] of [['ceiling', ceiling], ['gateway', gateway], ['gateway-recheck0', gateway0], ['gateway-init', gatewayInit], ['peer', peer]]) targets[t].pid = inst.pid;
  log(`processes for CPU per request: ${Object.values(targets).map((t) => `${t.id} ${t.pid ?? 'unknown'}`).join(', ')}`);

  // Correctness of every (scenario, target) pair before any load.
  log('verifying every scenario once on every target…');
  const plans = new Map();
  for (const s of SCENARIOS) {
    for (const t of s.targets) {
      const req = requestFor(s, targets[t]);
      plans.set(`${s.id}|${t}`, { ...req, expectBody: await verify(s, targets[t]) });
    }
  }
  log(`verified ${plans.size} scenario/target pairs`);

  // Warm-up: each pair once, not recorded.
  if (WARMUP_SECONDS > 0) {
    log(`warming up (${WARMUP_SECONDS} s per scenario/target pair)…`);
    for (const [key, plan] of plans) {
      const m = await load(plan, Math.max(...CONNECTIONS), WARMUP_SECONDS);
      assertClean(m, `warm-up ${key}`);
    }
  }

  // Interleaved rounds.
  const measurements = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const s of SCENARIOS) {
      for (const c of CONNECTIONS) {
        for (const t of s.targets) {
          const ticks0 = cpuTicks(targets[t].pid);
          const m = await load(plans.get(`${s.id}|${t}`), c, SECONDS);
          const ticks1 = cpuTicks(targets[t].pid);
          const what = `round ${round} ${s.id} ${t} c=${c}`;
          assertClean(m, what);
          m.cpuUsPerReq = ticks0 === undefined || ticks1 === undefined ? undefined : ((ticks1 - ticks0) * 1e6) / CLK_TCK / m.total;
          measurements.push({ round, scenario: s.id, target: t, connections: c, ...m });
          log(`${what}: ${fmtInt(m.rps)} req/s, p50 ${fmtMs(m.p50)} ms, p99 ${fmtMs(m.p99)} ms, CPU ${fmtInt(m.cpuUsPerReq)} µs/req`);
        }
      }
    }
  }

  // Report.
  const rows = summarize(measurements, targets);
  const extra = [];
  for (const c of CONNECTIONS) {
    for (const s of SCENARIOS.filter((x) => x.targets.includes('peer'))) {
      const gw = s.targets.find((t) => targets[t].kind === 'gateway');
      extra.push({ kind: 'gateway/peer', scenario: s.id, connections: c, ratio: pairedRatio(measurements, c, { scenario: s.id, target: gw }, { scenario: s.id, target: 'peer' }) });
    }
    if (SCENARIOS.some((s) => s.id === 'modern-list') && SCENARIOS.some((s) => s.id === 'list')) {
      // Same gateway instance, same round: the modern list over the legacy in-session list.
      const legacy = { scenario: 'list', target: 'gateway' };
      extra.push({
        kind: 'modern/legacy',
        scenario: 'modern-list',
        connections: c,
        ratio: pairedRatio(measurements, c, MODERN_GW, legacy),
        cpuRatio: pairedRatio(measurements, c, MODERN_GW, legacy, 'cpuUsPerReq'),
      });
    }
    if (SCENARIOS.some((s) => s.id === 'modern-list') && SCENARIOS.some((s) => s.id === 'session-check')) {
      // A legacy client whose previous request is older than SESSION_RECHECK_MS (a person picking a slash
      // command now and then) has its session checked with its Durable Object: RECHECK 0 measures that request.
      extra.push({ kind: 'modern/legacy-checked', scenario: 'modern-list', connections: c, ratio: pairedRatio(measurements, c, MODERN_GW, { scenario: 'session-check', target: 'gateway-recheck0' }) });
    }
    if (SCENARIOS.some((s) => s.id === 'session-check')) {
      extra.push({ kind: 'recheck0/recheckDefault', scenario: 'session-check', connections: c, ratio: pairedRatio(measurements, c, { scenario: 'session-check', target: 'gateway-recheck0' }, { scenario: 'session-check', target: 'gateway' }) });
    }
  }

  const out = [];
  out.push(`## promptgate benchmark (${startedAt.toISOString()})`, '');
  out.push(
    `Miniflare ${pkgVersion('miniflare')} on loopback, autocannon ${pkgVersion('autocannon')}, Node ${process.version}, ` +
      `${os.cpus().length} x ${os.cpus()[0]?.model?.trim()}; ${ROUNDS} interleaved round(s) of ${SECONDS} s per measurement; ` +
      `medians across rounds; "x ceiling" = median of per-round ratios to the ceiling in the same scenario and connection count. ` +
      `Durable Object storage: ${DO_STORAGE}. Load average at start ${loadavgAtStart.map((x) => x.toFixed(2)).join(' ')}, at end ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}.`,
    '',
  );
  out.push(table(rows), '');
  out.push('Session check (prompts/list on two gateway instances, paired per round):');
  for (const e of extra.filter((x) => x.kind === 'recheck0/recheckDefault')) {
    const rMemo = rows.find((r) => r.scenario === 'session-check' && r.connections === e.connections && r.target === 'gateway');
    const r0 = rows.find((r) => r.scenario === 'session-check' && r.connections === e.connections && r.target === 'gateway-recheck0');
    out.push(
      `- ${e.connections} connections: RECHECK ${targets.gateway.recheckMs} ${fmtInt(rMemo.rps)} req/s (${fmtX(rMemo.ratioToCeiling)} ceiling), ` +
        `RECHECK 0 ${fmtInt(r0.rps)} req/s (${fmtX(r0.ratioToCeiling)} ceiling); RECHECK 0 / RECHECK ${targets.gateway.recheckMs} = ${fmtX(e.ratio)}`,
    );
  }
  if (extra.some((x) => x.kind === 'modern/legacy')) {
    out.push('', 'Modern (2026-07-28, stateless) prompts/list vs legacy in-session prompts/list (gateway, paired per round):');
    for (const e of extra.filter((x) => x.kind === 'modern/legacy'))
      out.push(`- ${e.connections} connections: req/s ${fmtX(e.ratio)}; workerd CPU per request ${fmtX(e.cpuRatio)} (below 1 = modern costs less)`);
    for (const e of extra.filter((x) => x.kind === 'modern/legacy-checked'))
      out.push(`- ${e.connections} connections, against a legacy request whose session is checked with its Durable Object (RECHECK 0): req/s ${fmtX(e.ratio)}`);
  }
  out.push('', 'Gateway vs SDK peer (req/s, paired per round):');
  for (const e of extra.filter((x) => x.kind === 'gateway/peer')) out.push(`- ${e.scenario}, ${e.connections} connections: ${fmtX(e.ratio)}`);
  out.push('');
  out.push(
    `Gateway bundle (wrangler deploy --dry-run, index.js): ${gatewayBuild.rawBytes} bytes (${kib(gatewayBuild.rawBytes)}) raw, ` +
      `${gatewayBuild.gzipBytes} bytes (${kib(gatewayBuild.gzipBytes)}) gzip (zlib default level)` +
      (gatewayBuild.wranglerReports ? `; wrangler reports "${gatewayBuild.wranglerReports}"` : ''),
  );
  if (coldMedian) {
    out.push(
      `Cold start (median of ${cold.length} fresh Miniflare instances): new Miniflare() → ready ${fmtMs(coldMedian.readyMs)} ms; ` +
        `→ first successful initialize response ${fmtMs(coldMedian.coldStartMs)} ms (the initialize request itself ${fmtMs(coldMedian.initializeMs)} ms).`,
      `First requests after start: first in-session ping (first Durable Object touch) ${fmtMs(coldMedian.firstPingMs)} ms; ` +
        `first prompts/list (catalog cold read from KV) ${fmtMs(coldMedian.firstListMs)} ms; second prompts/list (warm) ${fmtMs(coldMedian.secondListMs)} ms.`,
    );
  }
  console.log(out.join('\n'));

  mkdirSync(OUT_DIR, { recursive: true });
  const json = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    settings: {
      seconds: SECONDS,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      warmupSeconds: WARMUP_SECONDS,
      coldStarts: COLD_STARTS,
      doStorage: DO_STORAGE,
      scenarios: SCENARIOS.map((s) => s.id),
    },
    environment: {
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model?.trim(),
      loadavgAtStart,
      loadavgAtEnd: os.loadavg(),
      versions: Object.fromEntries(['miniflare', 'wrangler', 'autocannon', 'hono', '@modelcontextprotocol/sdk', 'zod'].map((n) => [n, pkgVersion(n)])),
    },
    bundle: { rawBytes: gatewayBuild.rawBytes, gzipBytes: gatewayBuild.gzipBytes, buildMs: gatewayBuild.buildMs, wranglerReports: gatewayBuild.wranglerReports, ceilingRawBytes: ceilingBuild.rawBytes },
    coldStart: { median: coldMedian, runs: cold },
    targets: Object.fromEntries(Object.values(targets).map((t) => [t.id, { kind: t.kind, label: t.label }])),
    scenarios: SCENARIOS.map((s) => ({ id: s.id, label: s.label, body: s.body, targets: s.targets })),
    summary: rows,
    ratios: extra,
    measurements,
  };
  writeFileSync(join(OUT_DIR, 'latest.json'), `${JSON.stringify(json, null, 2)}\n`);
  log(`wrote ${join(OUT_DIR, 'latest.json')}`);
}

h.runMain(main);
