/**
 * `npm run bench:fanout`: live-update fan-out benchmark of the promptgate Worker.
 *
 * Builds the gateway bundle once (`wrangler deploy --dry-run`), runs it on
 * Miniflare (package API, its HTTP server on loopback) and, for each stream
 * count N and each NOTIFY_COALESCE_MS variant, on a fresh instance:
 *   1. publishes a small catalog (PUT /admin/catalog) and waits for its fan-out,
 *   2. opens N legacy sessions (initialize + notifications/initialized),
 *   3. opens N standalone SSE streams (GET /mcp) and reads each to its priming event,
 *   4. waits for quiescence, then makes ONE catalog change and records, per stream,
 *      when its first notifications/prompts/list_changed arrives (ms after the PUT
 *      was sent), then watches 2 s more for duplicates.
 * Prints markdown tables of medians across runs and writes bench/out/fanout.json.
 * Exits non-zero if any stream misses the event, gets it twice, or breaks.
 *
 * Knobs (env, see bench/FANOUT.md): FANOUT_SIZES, FANOUT_RUNS, FANOUT_COALESCE_MS,
 * FANOUT_INIT_CONCURRENCY, FANOUT_OPEN_CONCURRENCY, FANOUT_QUIESCE_MS,
 * FANOUT_DELIVERY_TIMEOUT_MS, FANOUT_DUP_WINDOW_MS, FANOUT_TIMEOUT_SECONDS, FANOUT_SHARDS (and TMPDIR).
 *
 * Everything it starts (Miniflare, workerd, streams, the build, the temp dir)
 * is disposed on exit, on error, on SIGINT/SIGTERM and on the global timeout.
 */
import assert from 'node:assert/strict';
import { setMaxListeners } from 'node:events';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Miniflare } from 'miniflare';
import { Agent, request } from 'undici';
import {
  JSON_HEADERS,
  OUT_DIR,
  PROTOCOL,
  buildGateway,
  createHarness,
  envNum,
  gatewayBaseOptions,
  median,
  percentile,
  pkgVersion,
  readWranglerConfig as readWranglerToml,
  round2,
  sleep,
  withTimeout,
} from './lib.mjs';

// ---------------------------------------------------------------- settings

function envList(name, fallback, min) {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  return raw.split(',').map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n) || n < min) throw new Error(`${name}: bad value ${JSON.stringify(s)} (integers >= ${min})`);
    return n;
  });
}

const SIZES = envList('FANOUT_SIZES', [100, 1000], 1);
const RUNS = envNum('FANOUT_RUNS', 3, { min: 1 });
/** null = wrangler.toml's NOTIFY_COALESCE_MS, then 0 (pure fan-out). */
const COALESCE_OVERRIDE = process.env.FANOUT_COALESCE_MS?.trim() ? envList('FANOUT_COALESCE_MS', [], 0) : null;
const INIT_CONCURRENCY = envNum('FANOUT_INIT_CONCURRENCY', 50, { min: 1 });
const OPEN_CONCURRENCY = envNum('FANOUT_OPEN_CONCURRENCY', 100, { min: 1 });
const QUIESCE_MS = envNum('FANOUT_QUIESCE_MS', 1000);
const DELIVERY_TIMEOUT_MS = envNum('FANOUT_DELIVERY_TIMEOUT_MS', 10_000, { min: 100 });
const DUP_WINDOW_MS = envNum('FANOUT_DUP_WINDOW_MS', 2000);
const TIMEOUT_S = envNum('FANOUT_TIMEOUT_SECONDS', 600, { min: 10 });
/**
 * Investigation knob: REGISTRY_SHARDS override (default: wrangler.toml's). Durable Object storage
 * is always Miniflare's default SQLite files under TMPDIR (in-memory objects have no SQL API,
 * which RegistryShard needs); point TMPDIR at a tmpfs to take the disk out of the picture.
 */
/** Where the temp dir (build, Miniflare state) goes: TMPDIR as given. */
const TMP_BASE = os.tmpdir();
const SHARDS_OVERRIDE = process.env.FANOUT_SHARDS?.trim() ? envNum('FANOUT_SHARDS', 16, { min: 1 }) : null;
/** Upper bounds of the phases before the change (they fail the run, never hang it). */
const PHASE_TIMEOUT_MS = 120_000;

const SIGNING_SECRET = 'fanout-signing-secret-not-for-production';
const ADMIN_TOKEN = 'fanout-admin-token-not-for-production';
const LIST_CHANGED = 'notifications/prompts/list_changed';

// ---------------------------------------------------------------- lifecycle

const h = createHarness({ name: 'fanout', timeoutS: TIMEOUT_S, timeoutVar: 'FANOUT_TIMEOUT_SECONDS', cleanupStepMs: 20_000 });
const { log, onCleanup } = h;

// ---------------------------------------------------------------- helpers

const fmtMs = (n) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const fmtMiB = (n) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');

/** Runs fn over items, at most `limit` at a time; rejects on the first failure. */
async function pool(items, limit, fn) {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !h.shuttingDown) {
      const i = next++;
      await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (h.shuttingDown) throw new Error('shutting down');
}

// ---------------------------------------------------------------- memory

/** RSS in MiB of a pid from /proc, or NaN. */
function rssMiB(pid) {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * The workerd process of the Miniflare instance listening on `port`: a child of
 * this process named workerd whose command line carries Miniflare's
 * `--socket-addr=entry=…` (with the port when Miniflare put it there). Null when
 * /proc cannot tell (then Node's own RSS is reported and labelled as such).
 */
function findWorkerd(port) {
  let dirs;
  try {
    dirs = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  const found = [];
  for (const d of dirs) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      const ppid = Number(fields[1]);
      const startTicks = Number(fields[19]);
      if (ppid !== process.pid || !comm.startsWith('workerd')) continue;
      const cmdline = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
      const entry = cmdline.find((a) => a.startsWith('--socket-addr=entry='));
      if (!entry) continue;
      found.push({ pid: Number(d), startTicks, portMatch: entry.endsWith(`:${port}`), entry });
    } catch {
      // Gone meanwhile.
    }
  }
  if (!found.length) return null;
  // Our own port if the command line names it, else the newest (one instance runs at a time).
  found.sort((a, b) => Number(b.portMatch) - Number(a.portMatch) || b.startTicks - a.startTicks);
  return found[0];
}

/** User + system CPU time of a pid in ms (clock ticks of 10 ms on Linux), or NaN. */
function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

function memorySample(workerd) {
  const nodeRss = process.memoryUsage().rss / 1048576;
  if (workerd) {
    const w = rssMiB(workerd.pid);
    if (Number.isFinite(w)) return { source: 'workerd', rssMiB: w, nodeRssMiB: nodeRss };
  }
  return { source: 'node', rssMiB: nodeRss, nodeRssMiB: nodeRss };
}

// ---------------------------------------------------------------- build + config

/** wrangler.toml (lib.mjs), checked for the bindings this bench relies on. */
async function readWranglerConfig() {
  const wcfg = await readWranglerToml(h);
  assert.ok(wcfg.kv.includes('PROMPTS'), 'wrangler.toml must bind the PROMPTS KV namespace');
  for (const [name, className] of [
    ['SESSIONS', 'SessionObject'],
    ['REGISTRY', 'RegistryShard'],
    ['FEED', 'ChangeFeed'],
  ]) {
    assert.deepEqual(wcfg.dos[name], { className, useSQLite: true }, `wrangler.toml must bind ${name} to the SQLite-backed ${className}`);
  }
  return wcfg;
}

// ---------------------------------------------------------------- catalog

const prompt = (name, text, args) => ({
  name,
  description: `Fan-out benchmark prompt ${name}`,
  ...(args ? { arguments: args.map((a) => ({ name: a, description: `the ${a}`, required: true })) } : {}),
  messages: [{ role: 'user', content: { type: 'text', text } }],
});
const INITIAL_CATALOG = [
  prompt('greet', 'Say hello to {{who}}.', ['who']),
  prompt('summarize', 'Summarize this text:\n\n{{text}}', ['text']),
  prompt('translate', 'Translate into {{lang}}:\n\n{{text}}', ['lang', 'text']),
];
const CHANGED_CATALOG = [
  prompt('greet', 'Say a warm hello to {{who}}.', ['who']),
  prompt('summarize', 'Summarize this text in three bullet points:\n\n{{text}}', ['text']),
  prompt('translate', 'Translate into {{lang}}:\n\n{{text}}', ['lang', 'text']),
  prompt('review', 'Review this change:\n\n{{diff}}', ['diff']),
];

// ---------------------------------------------------------------- one instance

/** Worker log lines (structured, from workerd), with the time Node saw them. */
function makeLogSink() {
  const fanouts = [];
  const errors = [];
  const waiters = [];
  const handle = ({ level, message, timestamp }) => {
    const seenAt = performance.now();
    if (message.startsWith('{')) {
      let parsed;
      try {
        parsed = JSON.parse(message);
      } catch {}
      if (parsed?.msg === 'catalog change fanned out') {
        fanouts.push({ ...parsed, seenAt, timestamp });
        for (const w of waiters.splice(0)) w();
        return;
      }
      // Other structured app logs are noise here, unless they report a problem.
      if (parsed?.msg && level !== 'error' && level !== 'warn') return;
    }
    if (level === 'error' || level === 'warn') {
      errors.push({ level, message });
      if (errors.length <= 20) console.error(`fanout: [workerd ${level}] ${message}`);
    }
  };
  /** Resolves with the fan-out log of `generation` (bounded). */
  const fanoutOf = async (generation, ms) => {
    const deadline = performance.now() + ms;
    for (;;) {
      const hit = fanouts.find((f) => f.generation === generation);
      if (hit) return hit;
      const left = deadline - performance.now();
      if (left <= 0) return null;
      await Promise.race([new Promise((r) => waiters.push(r)), sleep(Math.min(left, 250))]);
    }
  };
  return { handle, fanouts, errors, fanoutOf };
}

function options(build, wcfg, coalesceMs, logs) {
  return {
    ...gatewayBaseOptions(build, wcfg, 'fanout'),
    bindings: {
      ...wcfg.vars,
      NOTIFY_COALESCE_MS: String(coalesceMs),
      ...(SHARDS_OVERRIDE ? { REGISTRY_SHARDS: String(SHARDS_OVERRIDE) } : {}),
      SIGNING_SECRET,
      ADMIN_TOKEN,
    },
    handleStructuredLogs: logs.handle,
  };
}

async function httpJson(agent, url, { method = 'POST', headers, body, what }) {
  const res = await request(url, { method, headers, body, dispatcher: agent, headersTimeout: 30_000, bodyTimeout: 30_000 });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, what };
}

/**
 * The admin write that replaces the whole catalog: `PUT /admin/catalog` ({prompts}), or, on
 * builds whose admin API publishes through the CatalogWriter object instead,
 * `POST /admin/publish?prune=1` (same body, same effect). The first answer decides; the route
 * used is reported. Either must answer 200 with the new integer `generation`.
 */
const CATALOG_ROUTES = [
  { method: 'PUT', path: '/admin/catalog' },
  { method: 'POST', path: '/admin/publish?prune=1' },
];
let catalogRoute = null;

async function putCatalog(agent, base, prompts) {
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const body = JSON.stringify({ prompts });
  for (const route of catalogRoute ? [catalogRoute] : CATALOG_ROUTES) {
    const r = await httpJson(agent, new URL(route.path, base).href, { method: route.method, headers, body });
    // A route this build does not have: try the next one.
    if (!catalogRoute && (r.status === 404 || r.status === 405) && !/admin_disabled/.test(r.text)) continue;
    if (r.status !== 200) throw new Error(`${route.method} ${route.path}: HTTP ${r.status}: ${r.text.slice(0, 500)}`);
    const out = JSON.parse(r.text);
    if (!(Number.isInteger(out.generation) && out.generation > 0)) throw new Error(`${route.method} ${route.path}: no generation in ${r.text.slice(0, 300)}`);
    if (typeof out.prompts === 'number') assert.equal(out.prompts, prompts.length, `${route.method} ${route.path}: prompt count`);
    catalogRoute = route;
    return out.generation;
  }
  throw new Error(`no catalog write route answered (tried ${CATALOG_ROUTES.map((r) => `${r.method} ${r.path}`).join(', ')})`);
}

async function openSession(agent, mcpUrl, i) {
  const init = await httpJson(agent, mcpUrl, {
    headers: JSON_HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'promptgate-fanout', version: String(i) } },
    }),
  });
  if (init.status !== 200) throw new Error(`initialize #${i}: HTTP ${init.status}: ${init.text.slice(0, 300)}`);
  const result = JSON.parse(init.text).result;
  assert.equal(result?.protocolVersion, PROTOCOL, `initialize #${i}: protocol version`);
  assert.ok(result.capabilities?.prompts?.listChanged, `initialize #${i}: prompts.listChanged capability`);
  const sid = init.headers['mcp-session-id'];
  if (!sid) throw new Error(`initialize #${i}: no mcp-session-id header`);
  const note = await httpJson(agent, mcpUrl, {
    headers: { ...JSON_HEADERS, 'mcp-session-id': sid, 'mcp-protocol-version': PROTOCOL },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  if (note.status !== 202) throw new Error(`notifications/initialized #${i}: HTTP ${note.status}: ${note.text.slice(0, 300)}`);
  return sid;
}

/**
 * Opens one GET stream and parses it as SSE. `primed` resolves at the priming
 * event; every list_changed is timestamped (performance.now()) into `events`.
 */
function openStream(agent, mcpUrl, sid, signal, onFirstChange) {
  const s = { sid, key: null, primedAt: NaN, events: [], badIds: 0, other: 0, ended: false, error: null };
  s.primed = (async () => {
    const res = await request(mcpUrl, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': PROTOCOL },
      dispatcher: agent,
      signal,
      headersTimeout: 60_000,
      bodyTimeout: 0,
    });
    if (res.statusCode !== 200) {
      const text = await res.body.text().catch(() => '');
      throw new Error(`GET stream: HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
    }
    if (!String(res.headers['content-type']).startsWith('text/event-stream')) throw new Error(`GET stream: content-type ${res.headers['content-type']}`);
    return new Promise((resolvePrimed, rejectPrimed) => {
      let buf = '';
      const body = res.body;
      body.setEncoding('utf8');
      body.on('data', (chunk) => {
        const at = performance.now();
        buf += chunk;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const f = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) f.comment = line.slice(1).trim();
            else if (line.startsWith('id:')) f.id = line.slice(3).trim();
            else if (line.startsWith('event:')) f.event = line.slice(6).trim();
            else if (line.startsWith('retry:')) f.retry = Number(line.slice(6));
            else if (line.startsWith('data:')) f.data = (f.data === undefined ? '' : `${f.data}\n`) + line.slice(5).trimStart();
          }
          if (f.comment !== undefined || f.retry !== undefined) continue;
          if (f.id !== undefined && f.data === '' && s.key === null) {
            // Priming event: `<key>.0`, empty data.
            const m = /^(.+)\.0$/.exec(f.id);
            if (!m) return rejectPrimed(new Error(`priming event with unexpected id ${f.id}`));
            s.key = m[1];
            s.primedAt = at;
            resolvePrimed();
            continue;
          }
          let msg;
          try {
            msg = JSON.parse(f.data ?? '');
          } catch {}
          if (msg?.method === LIST_CHANGED && f.event === 'message') {
            // The first event after priming must be `<key>.1`, the next `<key>.2`, …
            if (f.id !== `${s.key}.${s.events.length + 1}`) s.badIds += 1;
            s.events.push({ at, id: f.id });
            if (s.events.length === 1) onFirstChange();
          } else {
            s.other += 1;
          }
        }
      });
      body.on('end', () => {
        s.ended = true;
        rejectPrimed(new Error('stream ended before its priming event'));
      });
      body.on('error', (e) => {
        s.ended = true;
        if (!signal.aborted) s.error = String(e?.message ?? e);
        rejectPrimed(e);
      });
    });
  })();
  // Failures are collected from `primed` by the caller; never unhandled.
  s.primed.catch(() => {});
  return s;
}

async function runOnce(build, wcfg, n, coalesceMs, run) {
  const tag = `N=${n} coalesce=${coalesceMs} run ${run}`;
  const logs = makeLogSink();
  const streamsAbort = new AbortController();
  setMaxListeners(0, streamsAbort.signal); // one signal for all N streams
  const agent = new Agent({ connections: n + 50, pipelining: 1, keepAliveTimeout: 60_000, connectTimeout: 30_000 });
  const mf = new Miniflare(options(build, wcfg, coalesceMs, logs));
  let disposed = false;
  const dispose = async () => {
    if (disposed) return;
    disposed = true;
    streamsAbort.abort();
    await agent.destroy().catch(() => {});
    await mf.dispose();
  };
  const untrack = onCleanup(`miniflare ${tag}`, dispose);
  try {
    const base = (await withTimeout(mf.ready, 60_000, `${tag}: Miniflare start`)).href;
    const port = new URL(base).port;
    const mcpUrl = new URL('/mcp', base).href;
    const workerd = findWorkerd(port);

    // Initial catalog, and its (empty) fan-out out of the way.
    const g0 = await putCatalog(agent, base, INITIAL_CATALOG).catch((e) => {
      throw new Error(`${tag}: initial catalog: ${e?.code ?? ''} ${e?.message ?? e}`, { cause: e });
    });
    if (!(await logs.fanoutOf(g0, 15_000))) throw new Error(`${tag}: no fan-out log for the initial catalog (generation ${g0})`);

    // N sessions.
    let t = performance.now();
    const sids = new Array(n);
    await withTimeout(
      pool([...Array(n).keys()], INIT_CONCURRENCY, async (i) => {
        try {
          sids[i] = await openSession(agent, mcpUrl, i);
        } catch (e) {
          throw new Error(`${tag}: session #${i}: ${e?.code ?? ''} ${e?.message ?? e}`, { cause: e });
        }
      }),
      PHASE_TIMEOUT_MS,
      `${tag}: opening ${n} sessions`,
    );
    const initMs = performance.now() - t;
    await sleep(200);
    const memBefore = memorySample(workerd);

    // N streams, each read to its priming event.
    let firstChanges = 0;
    let allChanged;
    const allChangedP = new Promise((r) => (allChanged = r));
    const onFirstChange = () => {
      if (++firstChanges === n) allChanged();
    };
    t = performance.now();
    const streams = new Array(n);
    await withTimeout(
      pool(sids, OPEN_CONCURRENCY, async (sid, i) => {
        streams[i] = openStream(agent, mcpUrl, sid, streamsAbort.signal, onFirstChange);
        try {
          await streams[i].primed;
        } catch (e) {
          throw new Error(`${tag}: stream #${i}: ${e?.code ?? ''} ${e?.message ?? e}`, { cause: e });
        }
      }),
      PHASE_TIMEOUT_MS,
      `${tag}: attaching ${n} streams`,
    );
    const attachMs = performance.now() - t;
    await sleep(QUIESCE_MS);
    if (streams.some((s) => s.ended)) throw new Error(`${tag}: ${streams.filter((s) => s.ended).length} stream(s) ended before the change`);
    const early = streams.filter((s) => s.events.length).length;
    if (early) throw new Error(`${tag}: ${early} stream(s) got list_changed before the change`);
    const memAfter = memorySample(workerd);

    // The change.
    const cpu0 = { workerd: workerd ? cpuMs(workerd.pid) : NaN, node: process.cpuUsage() };
    const wall0 = Date.now();
    const t0 = performance.now();
    const g1 = await putCatalog(agent, base, CHANGED_CATALOG).catch((e) => {
      throw new Error(`${tag}: catalog change: ${e?.code ?? ''} ${e?.message ?? e}`, { cause: e });
    });
    const putMs = performance.now() - t0;
    await Promise.race([allChangedP, sleep(Math.max(0, t0 + DELIVERY_TIMEOUT_MS - performance.now()))]);
    const waitedMs = performance.now() - t0;
    // CPU spent from the PUT to the last delivery (or the timeout): is workerd saturated?
    const nodeCpu = process.cpuUsage(cpu0.node);
    const cpu = { workerdMs: workerd ? cpuMs(workerd.pid) - cpu0.workerd : NaN, nodeMs: (nodeCpu.user + nodeCpu.system) / 1000, wallMs: waitedMs };
    // Every stream gets at least DUP_WINDOW_MS after its first event to show a second one.
    await sleep(DUP_WINDOW_MS);
    const fan = await logs.fanoutOf(g1, 1000);

    const allFirsts = streams.filter((s) => s.events.length).map((s) => s.events[0].at - t0);
    // Later than the bound counts as missing (reported apart as `late`).
    const firsts = allFirsts.filter((ms) => ms <= DELIVERY_TIMEOUT_MS).sort((a, b) => a - b);
    const late = allFirsts.length - firsts.length;
    const missing = n - firsts.length;
    const duplicates = streams.filter((s) => s.events.length > 1).length;
    const badIds = streams.reduce((a, s) => a + s.badIds, 0);
    const streamErrors = streams.filter((s) => s.error || s.ended).length;
    const result = {
      n,
      coalesceMs,
      run,
      delivered: firsts.length,
      missing,
      late,
      duplicates,
      badIds,
      streamErrors,
      firstMs: firsts[0] ?? NaN,
      p50Ms: percentile(firsts, 0.5),
      p99Ms: percentile(firsts, 0.99),
      lastMs: firsts.at(-1) ?? NaN,
      /** Last delivery minus the coalescing window: roughly the fan-out itself. */
      lastMinusCoalesceMs: (firsts.at(-1) ?? NaN) - coalesceMs,
      putMs,
      waitedMs,
      generation: g1,
      feed: fan
        ? {
            members: fan.members,
            delivered: fan.delivered,
            dropped: fan.dropped,
            failed: fan.failed,
            shards: fan.shards,
            shardFailures: fan.shardFailures,
            fanoutMs: fan.ms,
            // workerd's clock (epoch ms) when the feed finished, relative to the PUT being sent.
            doneAtMs: Number.isFinite(fan.timestamp) ? fan.timestamp - wall0 : NaN,
            logSeenAtMs: fan.seenAt - t0,
          }
        : null,
      cpu,
      initMs,
      attachMs,
      memory: { source: memBefore.source, beforeMiB: memBefore.rssMiB, afterMiB: memAfter.rssMiB, nodeBeforeMiB: memBefore.nodeRssMiB, nodeAfterMiB: memAfter.nodeRssMiB },
      workerdPid: workerd?.pid ?? null,
      workerErrors: logs.errors.length,
    };
    log(
      `${tag}: delivered ${result.delivered}/${n} (missing ${missing}, dup ${duplicates}, bad ids ${badIds}, stream errors ${streamErrors}); ` +
        `first ${fmtMs(result.firstMs)} p50 ${fmtMs(result.p50Ms)} p99 ${fmtMs(result.p99Ms)} last ${fmtMs(result.lastMs)} ms; ` +
        `PUT ${fmtMs(putMs)} ms, feed fan-out ${fan ? `${fan.ms} ms (${fan.members} members, ${fan.delivered} delivered, ${fan.failed} failed)` : 'log missing'}; ` +
        `CPU during delivery: workerd ${fmtMs(cpu.workerdMs)} ms, node ${fmtMs(cpu.nodeMs)} ms in ${fmtMs(waitedMs)} ms; ` +
        `init ${Math.round(initMs)} ms, attach ${Math.round(attachMs)} ms; ${memBefore.source} RSS ${fmtMiB(memBefore.rssMiB)} -> ${fmtMiB(memAfter.rssMiB)} MiB`,
    );
    return result;
  } finally {
    untrack();
    await withTimeout(dispose(), 30_000, `${tag}: dispose`);
  }
}

// ---------------------------------------------------------------- report

function summarize(results, sizes, coalesces) {
  const rows = [];
  for (const n of sizes) {
    for (const c of coalesces) {
      const rs = results.filter((r) => r.n === n && r.coalesceMs === c);
      if (!rs.length) continue;
      const med = (f) => median(rs.map(f));
      const sum = (f) => rs.reduce((a, r) => a + f(r), 0);
      rows.push({
        n,
        coalesceMs: c,
        runs: rs.length,
        firstMs: med((r) => r.firstMs),
        p50Ms: med((r) => r.p50Ms),
        p99Ms: med((r) => r.p99Ms),
        lastMs: med((r) => r.lastMs),
        lastPerRun: rs.map((r) => round2(r.lastMs)),
        delivered: sum((r) => r.delivered),
        missing: sum((r) => r.missing),
        duplicates: sum((r) => r.duplicates),
        badIds: sum((r) => r.badIds),
        streamErrors: sum((r) => r.streamErrors),
        memSource: rs[0].memory.source,
        memBeforeMiB: med((r) => r.memory.beforeMiB),
        memAfterMiB: med((r) => r.memory.afterMiB),
        putMs: med((r) => r.putMs),
        feedFanoutMs: med((r) => r.feed?.fanoutMs ?? NaN),
        feedDoneAtMs: med((r) => r.feed?.doneAtMs ?? NaN),
        workerdCpuMs: med((r) => r.cpu.workerdMs),
        nodeCpuMs: med((r) => r.cpu.nodeMs),
        initMs: med((r) => r.initMs),
        attachMs: med((r) => r.attachMs),
      });
    }
  }
  return rows;
}

function tables(rows) {
  const memLabel = rows[0]?.memSource === 'workerd' ? 'workerd RSS MiB' : 'Node RSS MiB (workerd not found)';
  const a = [
    `| N | coalesce ms | runs | first ms | p50 ms | p99 ms | last ms | delivered / missing / duplicates | ${memLabel} before → after attach |`,
    '|---:|---:|---:|---:|---:|---:|---:|---|---|',
  ];
  for (const r of rows) {
    a.push(
      `| ${r.n} | ${r.coalesceMs} | ${r.runs} | ${fmtMs(r.firstMs)} | ${fmtMs(r.p50Ms)} | ${fmtMs(r.p99Ms)} | ${fmtMs(r.lastMs)} | ` +
        `${r.delivered} / ${r.missing} / ${r.duplicates} | ${fmtMiB(r.memBeforeMiB)} → ${fmtMiB(r.memAfterMiB)} (+${fmtMiB(r.memAfterMiB - r.memBeforeMiB)}) |`,
    );
  }
  const b = [
    '| N | coalesce ms | admin write response ms | feed done at ms (workerd clock) | feed fan-out ms (ChangeFeed log) | last − coalesce ms | last per run ms | workerd / node CPU ms, PUT → last | open N sessions ms | attach N streams ms |',
    '|---:|---:|---:|---:|---:|---:|---|---|---:|---:|',
  ];
  for (const r of rows) {
    b.push(
      `| ${r.n} | ${r.coalesceMs} | ${fmtMs(r.putMs)} | ${fmtMs(r.feedDoneAtMs)} | ${fmtMs(r.feedFanoutMs)} | ${fmtMs(r.lastMs - r.coalesceMs)} | ` +
        `${r.lastPerRun.map(fmtMs).join(', ')} | ${fmtMs(r.workerdCpuMs)} / ${fmtMs(r.nodeCpuMs)} | ${Math.round(r.initMs)} | ${Math.round(r.attachMs)} |`,
    );
  }
  return { main: a.join('\n'), breakdown: b.join('\n') };
}

// ---------------------------------------------------------------- main

async function main() {
  const startedAt = new Date();
  const loadavgAtStart = os.loadavg();
  const tmp = h.makeTempDir('promptgate-fanout-');

  log('building the gateway (wrangler deploy --dry-run) and reading wrangler.toml…');
  const [wcfg, build] = await Promise.all([readWranglerConfig(), buildGateway(h, tmp)]);
  log(`gateway bundle ${(build.rawBytes / 1024).toFixed(1)} KiB (built in ${Math.round(build.buildMs)} ms)`);
  const configured = Number(wcfg.vars.NOTIFY_COALESCE_MS ?? 250);
  const coalesces = COALESCE_OVERRIDE ?? [...new Set([configured, 0])];
  log(
    `sizes ${SIZES.join(', ')}; NOTIFY_COALESCE_MS ${coalesces.join(', ')}; ${RUNS} run(s) each on a fresh Miniflare; ` +
      `REGISTRY_SHARDS ${SHARDS_OVERRIDE ?? wcfg.vars.REGISTRY_SHARDS}; DO storage: SQLite files under ${TMP_BASE}; global timeout ${TIMEOUT_S} s`,
  );

  const results = [];
  for (const n of SIZES) {
    for (let run = 1; run <= RUNS; run++) {
      // Variants interleaved per run, so drift hits both alike.
      for (const c of coalesces) results.push(await runOnce(build, wcfg, n, c, run));
    }
  }

  const rows = summarize(results, SIZES, coalesces);
  const t = tables(rows);
  const memSource = rows[0]?.memSource;
  const out = [
    `## promptgate fan-out benchmark (${startedAt.toISOString()})`,
    '',
    `Miniflare ${pkgVersion('miniflare')} (HTTP server on loopback), undici ${pkgVersion('undici')} client, Node ${process.version}, ` +
      `${os.cpus().length} x ${os.cpus()[0]?.model?.trim()}. One catalog change (${catalogRoute ? `${catalogRoute.method} ${catalogRoute.path}` : 'n/a'}) per run; times are ms from just ` +
      `before the PUT was sent to each stream's first notifications/prompts/list_changed; first/p50/p99/last are per run, then the ` +
      `median over ${RUNS} fresh instance(s); delivered/missing/duplicates are summed over runs (missing: nothing within ` +
      `${DELIVERY_TIMEOUT_MS} ms; duplicate: a second list_changed within the ${DUP_WINDOW_MS} ms after). REGISTRY_SHARDS ` +
      `${SHARDS_OVERRIDE ?? wcfg.vars.REGISTRY_SHARDS}${SHARDS_OVERRIDE ? ' (FANOUT_SHARDS)' : ''}, Durable Object storage: SQLite files under ${TMP_BASE}. Memory: ${memSource === 'workerd' ? 'RSS of the workerd child process of the Miniflare instance (/proc)' : "Node's own RSS (the workerd process was not found)"}, ` +
      `after the N sessions exist, before and after the N streams attach. Load average at start ${loadavgAtStart.map((x) => x.toFixed(2)).join(' ')}, ` +
      `at end ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}.`,
    '',
    t.main,
    '',
    'Where the time goes (medians): admin write response = the catalog write (KV, and the CatalogWriter object where the build has one) + ChangeFeed.publish; "feed done at" = workerd timestamp of the ' +
      "ChangeFeed's `catalog change fanned out` log, relative to the PUT (includes the coalescing window); feed fan-out = that log's " +
      'own `ms` (all shards delivered to all session objects).',
    '',
    t.breakdown,
  ];
  const target = rows.find((r) => r.n === 1000 && r.coalesceMs === configured);
  if (target) {
    out.push(
      '',
      `Target (N=1000, NOTIFY_COALESCE_MS=${configured}: last delivery ≤ 1000 ms, nothing lost or duplicated): ` +
        `${target.lastMs <= 1000 && !target.missing && !target.duplicates ? 'MET' : 'MISSED'} (last ${fmtMs(target.lastMs)} ms, ` +
        `missing ${target.missing}, duplicates ${target.duplicates}).`,
    );
  }
  console.log(out.join('\n'));

  mkdirSync(OUT_DIR, { recursive: true });
  const json = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    settings: {
      sizes: SIZES,
      runs: RUNS,
      coalesceMs: coalesces,
      initConcurrency: INIT_CONCURRENCY,
      openConcurrency: OPEN_CONCURRENCY,
      quiesceMs: QUIESCE_MS,
      deliveryTimeoutMs: DELIVERY_TIMEOUT_MS,
      dupWindowMs: DUP_WINDOW_MS,
      registryShards: SHARDS_OVERRIDE ?? Number(wcfg.vars.REGISTRY_SHARDS),
      catalogRoute: catalogRoute && `${catalogRoute.method} ${catalogRoute.path}`,
      doStorageDir: TMP_BASE,
      memorySource: memSource,
    },
    environment: {
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model?.trim(),
      loadavgAtStart,
      loadavgAtEnd: os.loadavg(),
      versions: Object.fromEntries(['miniflare', 'wrangler', 'undici', 'hono'].map((p) => [p, pkgVersion(p)])),
    },
    bundle: { rawBytes: build.rawBytes, buildMs: build.buildMs },
    summary: rows,
    runs: results,
  };
  writeFileSync(join(OUT_DIR, 'fanout.json'), `${JSON.stringify(json, (_k, v) => (typeof v === 'number' ? round2(v) : v), 2)}\n`);
  log(`wrote ${join(OUT_DIR, 'fanout.json')}`);

  const bad = rows.filter((r) => r.missing || r.duplicates || r.badIds || r.streamErrors);
  if (bad.length) {
    throw new Error(
      bad
        .map((r) => `N=${r.n} coalesce=${r.coalesceMs}: ${r.missing} missing, ${r.duplicates} duplicated, ${r.badIds} bad event ids, ${r.streamErrors} broken streams`)
        .join('; '),
    );
  }
}

h.runMain(main);
