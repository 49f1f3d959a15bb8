/**
 * `npm run bench:observe`: what a span per JSON-RPC call costs on the warm path. A 2026-07-28
 * prompts/get (stateless, three arguments) against gateway instances on Miniflare in the same run:
 * SPANS ON (TRACE_SPANS=on, the default) and SPANS OFF (TRACE_SPANS=off), two of each started in
 * the order on, off, off, on: instances of one build measure apart (the first started was
 * often the fastest), so neither variant gets the same place.
 * Both print the request's log line. Rounds are interleaved; the figure is the median over rounds
 * of ON ÷ OFF (each the sum of its two instances) in req/s and in workerd CPU per request. Miniflare samples no trace (`span.isTraced` is false), so
 * this is the cost of entering and leaving the span; attributes are set only on sampled spans.
 *
 * Per instance p50 is averaged over the pair; CPU per request is the pair's CPU over its requests.
 *
 * Knobs: OBSERVE_BENCH_SECONDS (5), OBSERVE_BENCH_ROUNDS (3), OBSERVE_BENCH_CONNECTIONS (10),
 * OBSERVE_BENCH_TIMEOUT_SECONDS (600). Prints a markdown table; writes bench/out/observe.json.
 */
import os from 'node:os';
import { buildGateway } from './lib/build.mjs';
import { envConnections, envNum } from './lib/env.mjs';
import { fmtInt, fmtMs, fmtX } from './lib/format.mjs';
import { createHarness } from './lib/harness.mjs';
import { fetchText } from './lib/http.mjs';
import { JSON_HEADERS, MODERN, MODERN_META, rpc, rpcResult } from './lib/jsonrpc.mjs';
import { assertClean, load } from './lib/load.mjs';
import { gatewayBaseOptions } from './lib/miniflare-options.mjs';
import { environment, writeOut } from './lib/output.mjs';
import { CLK_TCK, cpuTicks } from './lib/proc.mjs';
import { GET_ARGS, GET_PROMPT, getResult } from './lib/prompts.mjs';
import { seedCatalog } from './lib/seed.mjs';
import { startMiniflare } from './lib/start-target.mjs';
import { median, round2 } from './lib/stats.mjs';
import { readWranglerConfig } from './lib/wrangler-config.mjs';

const SECONDS = envNum('OBSERVE_BENCH_SECONDS', 5, { min: 1 });
const ROUNDS = envNum('OBSERVE_BENCH_ROUNDS', 3, { min: 1 });
const [CONNECTIONS] = envConnections('OBSERVE_BENCH_CONNECTIONS', '10');
const TIMEOUT_S = envNum('OBSERVE_BENCH_TIMEOUT_SECONDS', 600, { min: 30 });
const SIGNING_SECRET = 'observe-bench-signing-secret';
const BODY = rpc('prompts/get', { name: GET_PROMPT, arguments: GET_ARGS, _meta: MODERN_META });
const HEADERS = {
  ...JSON_HEADERS,
  'mcp-protocol-version': MODERN,
  'mcp-method': 'prompts/get',
  'mcp-name': GET_PROMPT,
};

const h = createHarness({ name: 'observe', timeoutS: TIMEOUT_S, timeoutVar: 'OBSERVE_BENCH_TIMEOUT_SECONDS' });
const { log } = h;

async function startGateway(build, wcfg, name, vars) {
  const t = await startMiniflare(
    h,
    {
      ...gatewayBaseOptions(build, wcfg, name),
      bindings: { ...wcfg.vars, SIGNING_SECRET, AUTH: 'none', RATE_LIMITS: 'off', ...vars },
    },
    name,
  );
  await seedCatalog(t.mf);
  return t;
}

/** One request per plan, checked against the rendered prompt; every measured reply must equal it. */
async function verify(plans) {
  const want = JSON.stringify(getResult().messages);
  for (const p of plans) {
    const r = await fetchText(p.url, { headers: HEADERS, body: BODY });
    const result = rpcResult(r, p.key);
    if (JSON.stringify(result.messages) !== want) throw new Error(`${p.key}: prompts/get rendered something else`);
    p.expectBody = r.text;
  }
  if (new Set(plans.map((p) => p.expectBody)).size !== 1) throw new Error('spans on and off answered differently');
}

async function measure(p) {
  const ticks0 = cpuTicks(p.pid);
  const m = await load(h, { url: p.url, headers: HEADERS, body: BODY, expectBody: p.expectBody }, CONNECTIONS, SECONDS);
  const ticks1 = cpuTicks(p.pid);
  assertClean(m, p.key);
  m.cpuUsPerReq =
    ticks0 === undefined || ticks1 === undefined ? undefined : ((ticks1 - ticks0) * 1e6) / CLK_TCK / m.total;
  return m;
}

async function main() {
  const loadavgAtStart = os.loadavg();
  log(`${ROUNDS} round(s) x 4 instances x ${SECONDS} s at ${CONNECTIONS} connections`);
  const tmp = h.makeTempDir('promptgate-observe-bench-');
  const [wcfg, build] = await Promise.all([
    readWranglerConfig(h, { kv: ['PROMPTS'], dos: { CATALOG: 'CatalogWriter' } }),
    buildGateway(h, tmp),
  ]);
  const plans = [];
  // ABBA: whichever instance starts first is not always the same variant.
  for (const [i, id] of ['on', 'off', 'off', 'on'].entries()) {
    const t = await startGateway(build, wcfg, `spans-${id}-${i}`, { TRACE_SPANS: id });
    plans.push({ id, key: `${id}${i}`, url: t.url, pid: t.pid });
  }
  await verify(plans);
  for (const p of plans) await load(h, { url: p.url, headers: HEADERS, body: BODY }, CONNECTIONS, 1); // warm-up
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    const m = {};
    // Alternate the direction too, so neither variant always runs on a machine the other just heated.
    for (const p of round % 2 ? [...plans].reverse() : plans) m[p.key] = await measure(p);
    const sum = (id, f) => plans.filter((p) => p.id === id).reduce((a, p) => a + f(m[p.key]), 0);
    const both = (id) => ({
      rps: sum(id, (x) => x.rps) / 2,
      p50: sum(id, (x) => x.p50) / 2,
      cpu: sum(id, (x) => x.cpuUsPerReq * x.total) / sum(id, (x) => x.total),
    });
    m.on = both('on');
    m.off = both('off');
    log(`round ${round + 1}: ${plans.map((p) => `${p.key} ${fmtInt(m[p.key].rps)}`).join(', ')} req/s`);
    log(
      `round ${round + 1}: on ${fmtInt(m.on.rps)} req/s, ${fmtInt(m.on.cpu)} µs/req; off ${fmtInt(m.off.rps)} req/s, ${fmtInt(m.off.cpu)} µs/req`,
    );
    rounds.push(m);
  }
  const rows = [
    { id: 'on', label: 'spans on (TRACE_SPANS=on)' },
    { id: 'off', label: 'spans off (TRACE_SPANS=off)' },
  ].map((r) => ({
    ...r,
    rps: median(rounds.map((m) => m[r.id].rps)),
    p50: median(rounds.map((m) => m[r.id].p50)),
    cpu: median(rounds.map((m) => m[r.id].cpu)),
    rpsRatio: median(rounds.map((m) => m[r.id].rps / m.off.rps)),
    cpuRatio: median(rounds.map((m) => m[r.id].cpu / m.off.cpu)),
  }));
  console.log(report(rows));
  const out = { startedAt: new Date(), settings: { SECONDS, ROUNDS, CONNECTIONS }, rows, rounds };
  out.environment = environment(loadavgAtStart, ['miniflare', 'wrangler']);
  log(`wrote ${writeOut('observe.json', out, (_k, v) => (typeof v === 'number' ? round2(v) : v))}`);
}

function report(rows) {
  const lines = [
    `2026-07-28 prompts/get ${GET_PROMPT}, ${CONNECTIONS} connections, medians of ${ROUNDS} interleaved rounds of ${SECONDS} s`,
    '',
    '| Target | req/s | p50 ms | CPU µs/req | req/s ÷ off | CPU ÷ off |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows)
    lines.push(
      `| ${r.label} | ${fmtInt(r.rps)} | ${fmtMs(r.p50, 2)} | ${fmtInt(r.cpu)} | ${fmtX(r.rpsRatio)} | ${fmtX(r.cpuRatio)} |`,
    );
  return lines.join('\n');
}

h.runMain(main);
