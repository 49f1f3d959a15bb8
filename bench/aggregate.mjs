/**
 * `npm run bench:aggregate`: an aggregated prompts/list over three upstream
 * MCP servers (each adding AGG_UPSTREAM_DELAY_MS, default 50 ms, to every POST),
 * cold and warm, in the same run as the local list.
 *
 * - Upstreams: three SDK v1 `Server`s, sessionful Streamable HTTP, on node:http,
 *   each its own child process (this file with `--upstream <i>`), 10 prompts each;
 *   every request is logged (arrival, finish) and the log read back over HTTP.
 * - COLD: on AGG_COLD_RUNS fresh AGGREGATED Miniflare instances: publish the 20
 *   local prompts (POST /admin/publish?prune=1), open a session, measure each
 *   upstream's own cold sequence directly from Node (initialize, initialized,
 *   list: the official SDK client's three round trips), then time the gateway's first prompts/list (must
 *   hold the 20 local + 30 upstream prompts). Target: median cold list <=
 *   slowest upstream (max of per-upstream medians) + 15 ms.
 * - WARM: LOCAL (no upstreams) vs AGGREGATED (cold path already done), in-session
 *   prompts/list, autocannon in interleaved rounds, every body checked first.
 *   Target: AGGREGATED/LOCAL req/s >= 0.8 (median of per-round ratios).
 *
 * Prints markdown tables and writes bench/out/aggregate.json. Knobs: see AGGREGATE.md.
 * Everything it starts (Miniflare instances, upstream servers, build processes,
 * the temp dir) is disposed on exit, error, SIGINT/SIGTERM and the global timeout.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Miniflare } from 'miniflare';
import { Agent, request } from 'undici';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { GetPromptRequestSchema, ListPromptsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  JSON_HEADERS,
  OUT_DIR,
  PROTOCOL,
  buildGateway,
  createHarness,
  envConnections,
  envNum,
  fmtInt,
  gatewayBaseOptions,
  median,
  percentile,
  pkgVersion,
  readWranglerConfig as readWranglerToml,
  round2 as r2,
  sleep,
} from './lib.mjs';
import { PROMPTS } from './lib/prompts.mjs';

// ---------------------------------------------------------------- settings

const SECONDS = envNum('AGG_SECONDS', 5, { min: 1 });
const ROUNDS = envNum('AGG_ROUNDS', 3, { min: 1 });
const WARMUP_SECONDS = envNum('AGG_WARMUP_SECONDS', 1, { min: 0 });
const COLD_RUNS = envNum('AGG_COLD_RUNS', 5, { min: 1 });
/** Cold runs done first and left out of the medians (the process's first Miniflare instance pays one-off costs). */
const COLD_DISCARD = envNum('AGG_COLD_DISCARD', 1, { min: 0 });
const DELAY_MS = envNum('AGG_UPSTREAM_DELAY_MS', 50, { min: 0 });
const UPSTREAM_PROMPTS = envNum('AGG_UPSTREAM_PROMPTS', 10, { min: 1 });
const UPSTREAM_COUNT = envNum('AGG_UPSTREAMS', 3, { min: 1 });
const UPSTREAM_TIMEOUT_MS = envNum('AGG_UPSTREAM_TIMEOUT_MS', 2000, { min: 50 });
const PAGE_SIZE = envNum('AGG_PAGE_SIZE', 100, { min: 1 });
const CONNECTIONS = envConnections('AGG_CONNECTIONS');
const COLD_TARGET_MS = 15;
const WARM_TARGET_RATIO = 0.8;
const ESTIMATE_S = 90 + (COLD_RUNS + COLD_DISCARD) * 6 + ROUNDS * CONNECTIONS.length * 2 * (SECONDS + 1.5) + 2 * (WARMUP_SECONDS + 1);
const TIMEOUT_S = envNum('AGG_TIMEOUT_SECONDS', Math.max(600, Math.ceil(ESTIMATE_S * 1.5)), { min: 10 });

const MODERN = '2026-07-28';
const SIGNING_SECRET = 'bench-signing-secret-not-for-production';
const ADMIN_TOKEN = 'bench-admin-token-not-for-production';
const LIST_BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'prompts/list' });

// ---------------------------------------------------------------- lifecycle

const CHILD = process.argv[2] === '--upstream';
const h = createHarness({ name: 'aggregate', timeoutS: TIMEOUT_S, timeoutVar: 'AGG_TIMEOUT_SECONDS', install: !CHILD });
const { log, onCleanup } = h;

// ---------------------------------------------------------------- helpers

const fmtMs = (n) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');

/** POST/GET with undici; body text read in full. */
async function http(agent, url, { method = 'POST', headers = JSON_HEADERS, body } = {}) {
  const t0 = performance.now();
  const res = await request(url, { method, headers, body, dispatcher: agent, headersTimeout: 30_000, bodyTimeout: 30_000 });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, ms: performance.now() - t0, t0, t1: performance.now() };
}

/** The JSON-RPC message with `id` from a JSON or SSE body. */
function rpcMessage(r, id, what) {
  const type = String(r.headers['content-type'] ?? '');
  const msgs = type.includes('text/event-stream')
    ? r.text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).filter(Boolean).map((d) => JSON.parse(d))
    : [JSON.parse(r.text)];
  const msg = msgs.find((m) => m.id === id);
  if (!msg) throw new Error(`${what}: no reply with id ${id} (HTTP ${r.status}): ${r.text.slice(0, 400)}`);
  return msg;
}
function rpcResult(r, id, what) {
  if (r.status !== 200) throw new Error(`${what}: HTTP ${r.status}: ${r.text.slice(0, 400)}`);
  const msg = rpcMessage(r, id, what);
  if (msg.error || !msg.result) throw new Error(`${what}: no JSON-RPC result: ${r.text.slice(0, 400)}`);
  return msg.result;
}

// ---------------------------------------------------------------- upstream servers

const TOPICS = ['lint', 'triage', 'deploy', 'search', 'docs', 'billing', 'oncall', 'schema', 'metrics', 'access', 'cache', 'queue'];
function upstreamPrompts(u) {
  return Array.from({ length: UPSTREAM_PROMPTS }, (_, j) => ({
    name: `${TOPICS[j % TOPICS.length]}_${u}_${j}`,
    title: `Upstream ${u} ${TOPICS[j % TOPICS.length]} ${j}`,
    description: `Prompt ${j} served by upstream ${u}: helps with ${TOPICS[j % TOPICS.length]} work.`,
    arguments: [
      { name: 'subject', description: 'What the prompt is about', required: true },
      ...(j % 2 ? [{ name: 'detail', description: 'How much detail to give', required: false }] : []),
    ],
  }));
}

/** Wall-clock ms with sub-ms precision, comparable across processes on this machine. */
const now = () => performance.timeOrigin + performance.now();

/**
 * Child mode (`node bench/aggregate.mjs --upstream <index>`): one SDK v1 sessionful upstream
 * on its own process, DELAY_MS before every POST, every request logged; `GET /__log?from=N`
 * returns the log. Prints {"port"} on stdout; exits when its parent closes stdin.
 */
async function upstreamChild(index) {
  const id = `up${index + 1}`;
  const prompts = upstreamPrompts(index + 1);
  const transports = new Map();
  const requests = [];
  const build = () => {
    const server = new Server({ name: `bench-upstream-${id}`, version: '1.0.0' }, { capabilities: { prompts: { listChanged: true } } });
    server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts }));
    server.setRequestHandler(GetPromptRequestSchema, (req) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `${req.params.name}: ${req.params.arguments?.subject ?? ''}` } }],
    }));
    return server;
  };
  const server = createServer(async (req, res) => {
    if (req.url.startsWith('/__log')) {
      const from = Number(new URL(req.url, 'http://x').searchParams.get('from') ?? 0);
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count: requests.length, sessions: transports.size, requests: requests.slice(from) }));
    }
    const entry = { method: req.method, arrived: now(), finished: null };
    requests.push(entry);
    res.on('finish', () => (entry.finished = now()));
    try {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      const body = raw ? JSON.parse(raw) : undefined;
      if (req.method === 'POST') entry.method = body?.method ?? 'reply';
      if (req.method === 'POST' && DELAY_MS) await sleep(DELAY_MS);
      const sid = req.headers['mcp-session-id'];
      let transport = sid ? transports.get(sid) : undefined;
      if (!transport) {
        if (sid) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"}}');
        const t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (x) => void transports.set(x, t) });
        t.onclose = () => t.sessionId && transports.delete(t.sessionId);
        await build().connect(t);
        transport = t;
      }
      await transport.handleRequest(req, res, body);
    } catch (e) {
      if (!res.headersSent) res.writeHead(500).end(String(e));
      else res.end();
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  process.stdin.on('end', () => process.exit(0)).resume();
  process.on('SIGTERM', () => process.exit(0));
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
}

/** Starts upstream `index` as a child process (registered for cleanup); its requests log is read over HTTP. */
async function startUpstream(index) {
  const id = `up${index + 1}`;
  const { child, port } = await h.startPortChild([fileURLToPath(import.meta.url), '--upstream', String(index)], `upstream ${id}`);
  const base = `http://127.0.0.1:${port}`;
  const readLog = async (from = 0) => JSON.parse((await http(undefined, `${base}/__log?from=${from}`, { method: 'GET', headers: {} })).text);
  return { id, url: `${base}/mcp`, prompts: upstreamPrompts(index + 1), pid: child.pid, readLog };
}

/**
 * The upstream's own cold latency: the sequence the official SDK client runs to list a
 * legacy server, timed from Node on a fresh connection: initialize,
 * notifications/initialized (its 202 awaited), prompts/list. The gateway's client
 * overlaps its server/discover probe with the initialize and its first request with the
 * initialized notification (src/catalog/upstreams/client.ts); here the probe is sent
 * first, on its own, only to check that the upstream answers it like a legacy server,
 * and is not timed.
 */
async function directSequence(u) {
  const agent = new Agent({ connections: 1 });
  const steps = {};
  try {
    let t0 = performance.now();
    const step = async (name, msg, headers) => {
      const r = await http(agent, u.url, { headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(msg) });
      steps[name] = r.ms;
      return r;
    };
    const clientInfo = { name: 'promptgate', version: '0.1.0' };
    const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': clientInfo };
    const probe = await step('discover', { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } }, { 'mcp-protocol-version': MODERN, 'mcp-method': 'server/discover' });
    assert.equal(probe.status, 400, `${u.id}: server/discover probe should get 400 from a legacy server`);
    delete steps.discover;
    t0 = performance.now();
    const init = await step('initialize', { jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo } }, {});
    const version = rpcResult(init, 2, `${u.id} initialize`).protocolVersion;
    const legacy = { 'mcp-protocol-version': version, 'mcp-session-id': init.headers['mcp-session-id'] };
    const note = await step('initialized', { jsonrpc: '2.0', method: 'notifications/initialized' }, legacy);
    assert.equal(note.status, 202, `${u.id}: notifications/initialized`);
    const list = await step('list', { jsonrpc: '2.0', id: 3, method: 'prompts/list', params: {} }, legacy);
    assert.equal(rpcResult(list, 3, `${u.id} prompts/list`).prompts.length, u.prompts.length);
    const totalMs = performance.now() - t0;
    await http(agent, u.url, { method: 'DELETE', headers: legacy }).catch(() => undefined);
    return { totalMs, steps };
  } finally {
    await agent.close();
  }
}

// ---------------------------------------------------------------- gateway

/** wrangler.toml (lib.mjs), checked for the bindings this bench relies on. */
async function readWranglerConfig() {
  const wcfg = await readWranglerToml(h);
  for (const name of ['SESSIONS', 'CATALOG', 'UPSTREAM']) assert.ok(wcfg.dos[name]?.useSQLite, `wrangler.toml must bind ${name} to a SQLite-backed Durable Object`);
  return wcfg;
}

function gatewayOptions(build, wcfg, upstreams, logs) {
  const ups = upstreams.map((u) => ({ id: u.id, url: u.url, timeout: UPSTREAM_TIMEOUT_MS }));
  return {
    ...gatewayBaseOptions(build, wcfg, 'bench'),
    bindings: {
      ...wcfg.vars,
      PAGE_SIZE: String(PAGE_SIZE),
      UPSTREAMS: JSON.stringify(ups),
      UPSTREAM_ALLOW_HTTP_LOOPBACK: 'true',
      SIGNING_SECRET,
      ADMIN_TOKEN,
    },
    handleStructuredLogs: ({ level, message }) => {
      if (level === 'warn' || level === 'error') {
        logs.push({ level, message });
        if (logs.length <= 10) log(`[workerd ${level}] ${message.slice(0, 300)}`);
      }
    },
  };
}

/** A gateway on Miniflare, the 20 local prompts published, one session open. */
async function startGateway(build, wcfg, upstreams, name) {
  const logs = [];
  const t0 = performance.now();
  const mf = new Miniflare(gatewayOptions(build, wcfg, upstreams, logs));
  const untrack = onCleanup(name, () => mf.dispose());
  const base = await mf.ready;
  const readyMs = performance.now() - t0;
  const agent = new Agent({ connections: 4 });
  const g = {
    name,
    logs,
    readyMs,
    agent,
    url: new URL('/mcp', base).href,
    dispose: async () => {
      untrack();
      await agent.close().catch(() => undefined);
      await mf.dispose();
    },
  };
  const pub = await http(agent, new URL('/admin/publish?prune=1', base).href, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompts: PROMPTS }),
  });
  if (pub.status !== 200) throw new Error(`${name}: publish: HTTP ${pub.status}: ${pub.text.slice(0, 500)}`);
  g.publishMs = pub.ms;
  const init = await http(agent, g.url, {
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'promptgate-bench', version: '1.0.0' } } }),
  });
  assert.equal(rpcResult(init, 1, `${name} initialize`).protocolVersion, PROTOCOL);
  g.sessionId = init.headers['mcp-session-id'];
  assert.ok(g.sessionId, `${name}: initialize gave no mcp-session-id`);
  g.headers = { ...JSON_HEADERS, 'mcp-protocol-version': PROTOCOL, 'mcp-session-id': g.sessionId };
  const note = await http(agent, g.url, { headers: g.headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  assert.equal(note.status, 202, `${name}: notifications/initialized: HTTP ${note.status} ${note.text.slice(0, 200)}`);
  return g;
}

const list = (g) => http(g.agent, g.url, { headers: g.headers, body: LIST_BODY });

function checkList(result, upstreams, what) {
  const names = result.prompts?.map((p) => p.name) ?? [];
  const want = [...PROMPTS.map((p) => p.name), ...upstreams.flatMap((u) => u.prompts.map((p) => `${u.id}.${p.name}`))].sort();
  const missing = want.filter((n) => !names.includes(n));
  if (missing.length || names.length !== want.length || result.nextCursor !== undefined) {
    throw new Error(`${what}: expected ${want.length} prompts on one page, got ${names.length}` + (missing.length ? `; missing ${missing.length}: ${missing.slice(0, 6).join(', ')}…` : '') + (result.nextCursor ? '; has nextCursor' : ''));
  }
}

// ---------------------------------------------------------------- cold

async function coldRun(build, wcfg, upstreams, i) {
  const g = await startGateway(build, wcfg, upstreams, `cold gateway #${i}`);
  try {
    // Each upstream's own cold sequence, measured from Node just before (sequentially), then all three at once.
    const direct = {};
    for (const u of upstreams) direct[u.id] = await directSequence(u);
    // The untimed legacy check (the probe) runs before each timed sequence, so the span is the longest sequence.
    const par = await Promise.all(upstreams.map((u) => directSequence(u)));
    const parallelMs = Math.max(...par.map((p) => p.totalMs));
    await sleep(50);
    // The cold list.
    const mark = await Promise.all(upstreams.map(async (u) => (await u.readLog(1e9)).count));
    const cold = await list(g);
    const t0 = cold.t0 + performance.timeOrigin; // the list request's start, on the upstreams' clock
    const logs = await Promise.all(upstreams.map((u, k) => u.readLog(mark[k])));
    const result = rpcResult(cold, 1, `${g.name}: cold prompts/list`);
    checkList(result, upstreams, `${g.name}: cold prompts/list`);
    // Where the time went, from the upstreams' own request logs (relative to the list request's start).
    const per = {};
    for (const [k, u] of upstreams.entries()) {
      const reqs = logs[k].requests.filter((e) => e.method !== 'GET' && e.method !== 'DELETE' && e.finished !== null);
      per[u.id] = {
        firstArrival: reqs[0]?.arrived - t0,
        lastFinish: Math.max(...reqs.map((e) => e.finished)) - t0,
        requests: reqs.map((e) => ({ method: e.method, arrived: r2(e.arrived - t0), finished: r2(e.finished - t0) })),
      };
      per[u.id].span = per[u.id].lastFinish - per[u.id].firstArrival;
    }
    const firstArrival = Math.min(...Object.values(per).map((p) => p.firstArrival));
    const lastFinish = Math.max(...Object.values(per).map((p) => p.lastFinish));
    const warm = await list(g);
    checkList(rpcResult(warm, 1, `${g.name}: second prompts/list`), upstreams, `${g.name}: second prompts/list`);
    const run = {
      coldListMs: cold.ms,
      secondListMs: warm.ms,
      direct: Object.fromEntries(Object.entries(direct).map(([k, v]) => [k, { totalMs: v.totalMs, steps: v.steps }])),
      slowestDirectMs: Math.max(...Object.values(direct).map((d) => d.totalMs)),
      parallelDirectMs: parallelMs,
      parallelDirectPerUpstreamMs: par.map((p) => p.totalMs),
      beforeFirstUpstreamMs: firstArrival,
      upstreamWindowMs: lastFinish - firstArrival,
      afterLastUpstreamMs: cold.ms - lastFinish,
      perUpstream: per,
      readyMs: g.readyMs,
      publishMs: g.publishMs,
      workerdWarnings: g.logs.length,
    };
    return run;
  } finally {
    await g.dispose();
  }
}

// ---------------------------------------------------------------- warm

function load({ url, headers, body, expectBody }, connections, seconds) {
  return new Promise((res, rej) => {
    if (h.shuttingDown) return rej(new Error('shutting down'));
    const latencies = [];
    const inst = autocannon({ url, method: 'POST', headers, body, connections, duration: seconds, pipelining: 1, timeout: 10, expectBody }, (err, r) => {
      h.currentLoad = null;
      if (err) return rej(err);
      latencies.sort((a, b) => a - b);
      const m = { rps: r.requests.total / r.duration, total: r.requests.total, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
      const bad = [];
      if (r.non2xx) bad.push(`${r.non2xx} non-2xx`);
      if (r.mismatches) bad.push(`${r.mismatches} body mismatches`);
      if (r.errors) bad.push(`${r.errors} errors`);
      if (r.timeouts) bad.push(`${r.timeouts} timeouts`);
      if (!r.requests.total) bad.push('no responses');
      if (bad.length) return rej(new Error(`load on ${url} c=${connections}: ${bad.join(', ')}`));
      res(m);
    });
    h.currentLoad = inst;
    inst.on('response', (_c, _s, _b, t) => latencies.push(t));
  });
}

/** Two identical checked answers; the body autocannon then expects byte for byte. */
async function verifiedPlan(g, upstreams) {
  const bodies = [];
  for (let i = 0; i < 2; i++) {
    const r = await list(g);
    checkList(rpcResult(r, 1, `${g.name} prompts/list`), upstreams, `${g.name} prompts/list`);
    bodies.push(r.text);
  }
  if (bodies[0] !== bodies[1]) throw new Error(`${g.name}: two identical prompts/list requests got different bodies`);
  return { url: g.url, headers: g.headers, body: LIST_BODY, expectBody: bodies[0], bytes: Buffer.byteLength(bodies[0]) };
}

// ---------------------------------------------------------------- main

async function main() {
  const startedAt = new Date();
  const loadavgAtStart = os.loadavg();
  log(`${COLD_RUNS} cold runs; warm: ${ROUNDS} round(s) x ${SECONDS} s at ${CONNECTIONS.join('/')} connections; ` +
    `${UPSTREAM_COUNT} upstreams x ${UPSTREAM_PROMPTS} prompts, +${DELAY_MS} ms per POST; estimated ${Math.round(ESTIMATE_S)} s, global timeout ${TIMEOUT_S} s`);
  const tmp = h.makeTempDir('promptgate-aggregate-');

  log('building the gateway (wrangler deploy --dry-run) and starting the upstreams…');
  const [wcfg, build, upstreams] = await Promise.all([
    readWranglerConfig(),
    buildGateway(h, tmp),
    Promise.all(Array.from({ length: UPSTREAM_COUNT }, (_, i) => startUpstream(i))),
  ]);
  log(`built in ${Math.round(build.buildMs)} ms; upstreams ${upstreams.map((u) => u.url).join(', ')}`);
  // Node's first requests pay undici/JIT start-up; not part of any upstream's latency.
  for (const u of upstreams) await directSequence(u);

  // COLD
  const cold = [];
  const discarded = [];
  for (let i = 1; i <= COLD_DISCARD + COLD_RUNS; i++) {
    const r = await coldRun(build, wcfg, upstreams, i);
    (i <= COLD_DISCARD ? discarded : cold).push(r);
    log(`cold #${i}${i <= COLD_DISCARD ? ' (discarded)' : ''}: list ${fmtMs(r.coldListMs)} ms; slowest upstream direct ${fmtMs(r.slowestDirectMs)} ms (parallel ${fmtMs(r.parallelDirectMs)}); ` +
      `before 1st upstream req ${fmtMs(r.beforeFirstUpstreamMs)}, upstream window ${fmtMs(r.upstreamWindowMs)}, after last upstream reply ${fmtMs(r.afterLastUpstreamMs)} ms`);
  }
  const perUpstreamDirect = Object.fromEntries(upstreams.map((u) => [u.id, median(cold.map((c) => c.direct[u.id].totalMs))]));
  const slowestId = Object.entries(perUpstreamDirect).sort((a, b) => b[1] - a[1])[0][0];
  const coldSummary = {
    coldListMs: median(cold.map((c) => c.coldListMs)),
    slowestUpstream: slowestId,
    slowestUpstreamMs: perUpstreamDirect[slowestId],
    perUpstreamDirectMs: perUpstreamDirect,
    perUpstreamDirectStepsMs: Object.fromEntries(
      upstreams.map((u) => [u.id, Object.fromEntries(Object.keys(cold[0].direct[u.id].steps).map((s) => [s, median(cold.map((c) => c.direct[u.id].steps[s]))]))]),
    ),
    parallelDirectMs: median(cold.map((c) => c.parallelDirectMs)),
    beforeFirstUpstreamMs: median(cold.map((c) => c.beforeFirstUpstreamMs)),
    upstreamWindowMs: median(cold.map((c) => c.upstreamWindowMs)),
    afterLastUpstreamMs: median(cold.map((c) => c.afterLastUpstreamMs)),
    perUpstreamSpanMs: Object.fromEntries(upstreams.map((u) => [u.id, median(cold.map((c) => c.perUpstream[u.id].span))])),
    secondListMs: median(cold.map((c) => c.secondListMs)),
  };
  coldSummary.differenceMs = coldSummary.coldListMs - coldSummary.slowestUpstreamMs;
  coldSummary.met = coldSummary.differenceMs <= COLD_TARGET_MS;

  // WARM
  log('starting LOCAL and AGGREGATED gateways…');
  const [local, agg] = await Promise.all([startGateway(build, wcfg, [], 'LOCAL'), startGateway(build, wcfg, upstreams, 'AGGREGATED')]);
  const first = await list(agg); // the cold path, done before any measurement
  checkList(rpcResult(first, 1, 'AGGREGATED first prompts/list'), upstreams, 'AGGREGATED first prompts/list');
  const plans = { local: await verifiedPlan(local, []), aggregated: await verifiedPlan(agg, upstreams) };
  log(`verified: LOCAL ${plans.local.bytes} B body (20 prompts), AGGREGATED ${plans.aggregated.bytes} B body (${20 + UPSTREAM_COUNT * UPSTREAM_PROMPTS} prompts)`);
  const warmMark = await Promise.all(upstreams.map(async (u) => (await u.readLog(1e9)).count));
  if (WARMUP_SECONDS) for (const p of Object.values(plans)) await load(p, Math.max(...CONNECTIONS), WARMUP_SECONDS);
  const measurements = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const c of CONNECTIONS) {
      const order = round % 2 ? ['local', 'aggregated'] : ['aggregated', 'local'];
      for (const t of order) {
        const m = await load(plans[t], c, SECONDS);
        measurements.push({ round, target: t, connections: c, ...m });
        log(`round ${round} ${t} c=${c}: ${fmtInt(m.rps)} req/s, p50 ${fmtMs(m.p50)} ms, p99 ${fmtMs(m.p99)} ms`);
      }
    }
  }
  // Requests the upstreams saw while the warm phase ran (none are on the list path; the UPSTREAM_POLL_MS alarm may re-list).
  const warmUpstreamMethods = {};
  for (const [k, u] of upstreams.entries()) for (const e of (await u.readLog(warmMark[k])).requests) warmUpstreamMethods[e.method] = (warmUpstreamMethods[e.method] ?? 0) + 1;
  const upstreamReqsDuringWarm = Object.values(warmUpstreamMethods).reduce((a, b) => a + b, 0);
  const warmRows = [];
  for (const c of CONNECTIONS) {
    const of = (t) => measurements.filter((m) => m.connections === c && m.target === t);
    const ratios = of('aggregated').map((a) => a.rps / of('local').find((l) => l.round === a.round).rps);
    for (const t of ['local', 'aggregated']) {
      const ms = of(t);
      warmRows.push({
        connections: c,
        target: t,
        rps: median(ms.map((m) => m.rps)),
        p50: median(ms.map((m) => m.p50)),
        p99: median(ms.map((m) => m.p99)),
        rpsPerRound: ms.map((m) => Math.round(m.rps)),
        bodyBytes: plans[t].bytes,
        ratio: t === 'aggregated' ? median(ratios) : undefined,
        ratiosPerRound: t === 'aggregated' ? ratios.map(r2) : undefined,
      });
    }
  }
  const warmMet = warmRows.filter((r) => r.target === 'aggregated').every((r) => r.ratio >= WARM_TARGET_RATIO);
  const warnings = [...local.logs, ...agg.logs].length;

  // REPORT
  const out = [];
  out.push(`## promptgate aggregated list benchmark (${startedAt.toISOString()})`, '');
  out.push(
    `Miniflare ${pkgVersion('miniflare')} on loopback, autocannon ${pkgVersion('autocannon')}, Node ${process.version}, ${os.cpus().length} x ${os.cpus()[0]?.model?.trim()}; ` +
      `${UPSTREAM_COUNT} upstreams (SDK v1 Server, sessionful Streamable HTTP, node:http, one child process each) x ${UPSTREAM_PROMPTS} prompts, +${DELAY_MS} ms before every POST, timeout ${UPSTREAM_TIMEOUT_MS} ms; ` +
      `20 local prompts; PAGE_SIZE ${PAGE_SIZE}; Durable Objects SQLite-backed on disk (Miniflare default). Load average at start ${loadavgAtStart.map((x) => x.toFixed(2)).join(' ')}.`,
    '',
  );
  out.push(`### Cold: first prompts/list on a fresh AGGREGATED instance (${COLD_RUNS} runs${COLD_DISCARD ? `, after ${COLD_DISCARD} discarded` : ''})`, '');
  out.push('| Run | cold list ms | slowest upstream direct ms | parallel direct (all 3) ms | before 1st upstream req ms | upstream window ms | after last upstream reply ms | 2nd list ms |');
  out.push('|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const [i, c] of [...discarded, ...cold].entries()) {
    out.push(`| ${i < COLD_DISCARD ? `${i + 1} (discarded)` : i + 1} | ${fmtMs(c.coldListMs)} | ${fmtMs(c.slowestDirectMs)} | ${fmtMs(c.parallelDirectMs)} | ${fmtMs(c.beforeFirstUpstreamMs)} | ${fmtMs(c.upstreamWindowMs)} | ${fmtMs(c.afterLastUpstreamMs)} | ${fmtMs(c.secondListMs)} |`);
  }
  const s = coldSummary;
  out.push(`| **median** | **${fmtMs(s.coldListMs)}** | ${fmtMs(median(cold.map((c) => c.slowestDirectMs)))} | ${fmtMs(s.parallelDirectMs)} | ${fmtMs(s.beforeFirstUpstreamMs)} | ${fmtMs(s.upstreamWindowMs)} | ${fmtMs(s.afterLastUpstreamMs)} | ${fmtMs(s.secondListMs)} |`, '');
  out.push(
    `Slowest upstream (median of its direct cold sequence initialize→initialized→list): ${s.slowestUpstream} ${fmtMs(s.slowestUpstreamMs)} ms ` +
      `(per upstream: ${Object.entries(s.perUpstreamDirectMs).map(([k, v]) => `${k} ${fmtMs(v)}`).join(', ')}; steps of ${s.slowestUpstream}: ` +
      `${Object.entries(s.perUpstreamDirectStepsMs[s.slowestUpstream]).map(([k, v]) => `${k} ${fmtMs(v)}`).join(', ')}).`,
    `Upstream-side span of the gateway's own sequence during the cold list (first request arrival → last reply finished): ${Object.entries(s.perUpstreamSpanMs).map(([k, v]) => `${k} ${fmtMs(v)}`).join(', ')} ms.`,
    '',
    `**Cold target: median cold list ${fmtMs(s.coldListMs)} ms − slowest upstream ${fmtMs(s.slowestUpstreamMs)} ms = ${s.differenceMs >= 0 ? '+' : ''}${fmtMs(s.differenceMs)} ms (target ≤ +${COLD_TARGET_MS} ms): ${s.met ? 'MET' : 'NOT MET'}.**`,
    '',
  );
  out.push(`### Warm: in-session prompts/list, LOCAL vs AGGREGATED (${ROUNDS} interleaved rounds x ${SECONDS} s, medians)`, '');
  out.push('| Conns | Target | body bytes | req/s | p50 ms | p99 ms | req/s per round | AGGREGATED / LOCAL |');
  out.push('|---:|---|---:|---:|---:|---:|---|---:|');
  for (const r of warmRows) {
    out.push(`| ${r.connections} | ${r.target === 'local' ? 'LOCAL (20 prompts)' : `AGGREGATED (${20 + UPSTREAM_COUNT * UPSTREAM_PROMPTS} prompts)`} | ${r.bodyBytes} | ${fmtInt(r.rps)} | ${fmtMs(r.p50)} | ${fmtMs(r.p99)} | ${r.rpsPerRound.join(' / ')} | ${r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}x`} |`);
  }
  out.push('', `**Warm target: AGGREGATED/LOCAL ≥ ${WARM_TARGET_RATIO}x at every connection count: ${warmMet ? 'MET' : 'NOT MET'}.** ` +
    `Upstream requests during the warm phase: ${upstreamReqsDuringWarm}${upstreamReqsDuringWarm ? ` (${Object.entries(warmUpstreamMethods).map(([m, n]) => `${n} ${m}`).join(', ')}; expected from the UpstreamObject poll alarm (UPSTREAM_POLL_MS) or its change stream)` : ''}. workerd warnings/errors: cold runs ${cold.reduce((n, c) => n + c.workerdWarnings, 0)}, warm ${warnings}.`);
  console.log(out.join('\n'));

  mkdirSync(OUT_DIR, { recursive: true });
  const json = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    settings: { seconds: SECONDS, rounds: ROUNDS, connections: CONNECTIONS, warmupSeconds: WARMUP_SECONDS, coldRuns: COLD_RUNS, coldDiscard: COLD_DISCARD, upstreamDelayMs: DELAY_MS, upstreams: UPSTREAM_COUNT, upstreamPrompts: UPSTREAM_PROMPTS, upstreamTimeoutMs: UPSTREAM_TIMEOUT_MS, pageSize: PAGE_SIZE },
    environment: {
      node: process.version,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model?.trim(),
      loadavgAtStart,
      loadavgAtEnd: os.loadavg(),
      versions: Object.fromEntries(['miniflare', 'wrangler', 'autocannon', 'undici', '@modelcontextprotocol/sdk'].map((n) => [n, pkgVersion(n)])),
    },
    targets: { coldMaxOverSlowestUpstreamMs: COLD_TARGET_MS, warmMinRatio: WARM_TARGET_RATIO },
    cold: { summary: coldSummary, runs: cold, discarded },
    warm: { met: warmMet, summary: warmRows, measurements, upstreamRequestsDuringWarm: warmUpstreamMethods, workerdWarnings: [...local.logs, ...agg.logs] },
  };
  writeFileSync(join(OUT_DIR, 'aggregate.json'), `${JSON.stringify(json, (_k, v) => (typeof v === 'number' ? r2(v) : v), 2)}\n`);
  log(`wrote ${join(OUT_DIR, 'aggregate.json')}`);
}

if (CHILD) {
  upstreamChild(Number(process.argv[3])).catch((e) => {
    console.error(e);
    process.exit(1);
  });
} else {
  h.runMain(main);
}
