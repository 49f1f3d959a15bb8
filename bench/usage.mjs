/**
 * `npm run bench:usage`: what usage counting costs on the warm path. A warm prompts/get
 * (code_review with its three arguments) on two gateway instances on Miniflare in the same
 * run, USAGE=on (wrangler.toml's settings, USAGE_FLUSH_MS 10000) and USAGE=off, in both eras:
 * legacy in session and 2026-07-28 stateless. The bare-Hono ceiling runs in the same rounds
 * for scale. Each round measures ON and OFF twice, A B B A (which goes first alternates by
 * round), so a slow spell of the shared machine weighs on both; each figure is the median
 * over rounds of on ÷ off in the same round, by req/s and by workerd CPU per request.
 * Target (issue 14): counting on stays >= 0.95x of counting off. At the end the ON instance
 * must have stored counts (it counted) and the OFF instance none.
 *
 * Knobs: USAGE_BENCH_SECONDS (3, per measurement), USAGE_BENCH_ROUNDS (5), USAGE_BENCH_CONNECTIONS (10),
 * USAGE_BENCH_TIMEOUT_SECONDS (900). Prints a markdown table; writes bench/out/usage.json.
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import { buildCeiling, buildGateway } from './lib/build.mjs';
import { sleep } from './lib/async.mjs';
import { envConnections, envNum } from './lib/env.mjs';
import { fmtInt, fmtMs, fmtX } from './lib/format.mjs';
import { createHarness } from './lib/harness.mjs';
import { fetchText } from './lib/http.mjs';
import { JSON_HEADERS, MODERN, MODERN_META, PROTOCOL, rpc, rpcResult } from './lib/jsonrpc.mjs';
import { load, measureCpu, pooled } from './lib/load.mjs';
import { openSession } from './lib/mcp-session.mjs';
import { ceilingOptions, gatewayBaseOptions } from './lib/miniflare-options.mjs';
import { environment, writeOut } from './lib/output.mjs';
import { GET_ARGS, GET_PROMPT, getResult, listResult } from './lib/prompts.mjs';
import { seedCatalog } from './lib/seed.mjs';
import { startMiniflare } from './lib/start-target.mjs';
import { median, round2 } from './lib/stats.mjs';
import { readWranglerConfig } from './lib/wrangler-config.mjs';

const SECONDS = envNum('USAGE_BENCH_SECONDS', 3, { min: 1 });
const ROUNDS = envNum('USAGE_BENCH_ROUNDS', 5, { min: 1 });
const [CONNECTIONS] = envConnections('USAGE_BENCH_CONNECTIONS', '10');
const TIMEOUT_S = envNum('USAGE_BENCH_TIMEOUT_SECONDS', 900, { min: 30 });
const TARGET = 0.95;
const SIGNING_SECRET = 'usage-bench-signing-secret';
const ADMIN_TOKEN = 'usage-bench-admin-token';
const CLIENT_INFO = { name: 'promptgate-bench', version: '1.0.0' };
const GET = { name: GET_PROMPT, arguments: GET_ARGS };

const h = createHarness({ name: 'usage', timeoutS: TIMEOUT_S, timeoutVar: 'USAGE_BENCH_TIMEOUT_SECONDS' });
const { log } = h;

async function startGateway(build, wcfg, name, usage) {
  const bindings = { ...wcfg.vars, SIGNING_SECRET, ADMIN_TOKEN, RATE_LIMITS: 'off', USAGE: usage };
  const t = await startMiniflare(h, { ...gatewayBaseOptions(build, wcfg, name), bindings }, name);
  await seedCatalog(t.mf);
  const { sessionId } = await openSession(fetchText, t.url, { clientInfo: CLIENT_INFO });
  return { ...t, sessionId };
}

/** The two scenarios' requests on one gateway instance. */
function plansFor(t, label) {
  const legacy = { ...JSON_HEADERS, 'mcp-session-id': t.sessionId, 'mcp-protocol-version': PROTOCOL };
  const modern = {
    ...JSON_HEADERS,
    'mcp-protocol-version': MODERN,
    'mcp-method': 'prompts/get',
    'mcp-name': GET_PROMPT,
  };
  const meta = { ...MODERN_META, 'io.modelcontextprotocol/clientInfo': CLIENT_INFO };
  return {
    get: { label, url: t.url, pid: t.pid, headers: legacy, body: rpc('prompts/get', GET) },
    'modern-get': { label, url: t.url, pid: t.pid, headers: modern, body: rpc('prompts/get', { ...GET, _meta: meta }) },
  };
}

/** One request per plan, checked (the rendered code_review), its exact reply kept for every measured one. */
async function verify(plan, id) {
  const r = await fetchText(plan.url, { headers: plan.headers, body: plan.body });
  const result = rpcResult(r, id);
  if (id.startsWith('ceiling')) return (plan.expectBody = r.text);
  const rendered = { ...result };
  delete rendered._meta;
  delete rendered.resultType;
  assert.deepEqual(rendered, getResult(), `${id}: not the expected prompt`);
  plan.expectBody = r.text;
}

const measure = (plan, what) => measureCpu(h, plan, CONNECTIONS, SECONDS, what);

/** The ON instance stored what it counted (within one flush interval); the OFF instance nothing. */
async function checkCounted(on, off) {
  const totalOf = async (t) => {
    const r = await fetchText(new URL('/admin/usage', t.url).href, {
      method: 'GET',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    if (r.status !== 200) throw new Error(`GET /admin/usage: HTTP ${r.status}: ${r.text.slice(0, 300)}`);
    return JSON.parse(r.text).totals.count;
  };
  let counted = 0;
  for (let i = 0; i < 60 && counted === 0; i++) if ((counted = await totalOf(on)) === 0) await sleep(500);
  if (counted === 0) throw new Error('USAGE=on stored no counts: the comparison would measure nothing');
  const uncounted = await totalOf(off);
  if (uncounted !== 0) throw new Error(`USAGE=off stored ${uncounted} counts`);
  return counted;
}

async function main() {
  const loadavgAtStart = os.loadavg();
  log(`${ROUNDS} round(s) x 2 scenarios x (ceiling + 2 x on + 2 x off) x ${SECONDS} s at ${CONNECTIONS} connections`);
  const tmp = h.makeTempDir('promptgate-usage-bench-');
  const [wcfg, build, ceilingBuild] = await Promise.all([
    readWranglerConfig(h, { kv: ['PROMPTS'], dos: { USAGE_STORE: 'UsageStore', SESSIONS: 'SessionObject' } }),
    buildGateway(h, tmp),
    buildCeiling(tmp),
  ]);
  const ceilingBody = JSON.stringify({ jsonrpc: '2.0', id: 1, result: listResult() });
  const ceiling = await startMiniflare(h, ceilingOptions(ceilingBuild, wcfg, { CEILING_BODY: ceilingBody }), 'ceiling');
  const on = await startGateway(build, wcfg, 'usage-on', 'on');
  const off = await startGateway(build, wcfg, 'usage-off', 'off');
  const plans = { on: plansFor(on, 'USAGE=on'), off: plansFor(off, 'USAGE=off') };
  plans.ceiling = plansFor({ ...ceiling, sessionId: on.sessionId }, 'ceiling');
  const scenarios = ['get', 'modern-get'];
  for (const s of scenarios) for (const t of ['ceiling', 'on', 'off']) await verify(plans[t][s], `${t} ${s}`);
  for (const s of scenarios) for (const t of ['ceiling', 'on', 'off']) await load(h, plans[t][s], CONNECTIONS, 1);
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    const m = {};
    const [a, b] = round % 2 ? ['off', 'on'] : ['on', 'off'];
    for (const s of scenarios) {
      const what = (t) => `${t} ${s} round ${round + 1}`;
      const ceilingRun = await measure(plans.ceiling[s], what('ceiling'));
      // A B B A: a slow spell of the shared machine falls on both instances alike.
      const runs = { [a]: [await measure(plans[a][s], what(a))], [b]: [await measure(plans[b][s], what(b))] };
      runs[b].push(await measure(plans[b][s], what(b)));
      runs[a].push(await measure(plans[a][s], what(a)));
      m[s] = { ceiling: ceilingRun, on: pooled(runs.on), off: pooled(runs.off) };
      log(
        `round ${round + 1} ${s}: ${['ceiling', 'on', 'off'].map((t) => `${t} ${fmtInt(m[s][t].rps)} req/s`).join(', ')}`,
      );
    }
    rounds.push(m);
  }
  const counted = await checkCounted(on, off);
  log(`USAGE=on stored ${fmtInt(counted)} counted calls; USAGE=off none`);
  const rows = summarize(scenarios, rounds);
  console.log(report(rows));
  const out = { startedAt: new Date(), settings: { SECONDS, ROUNDS, CONNECTIONS, TARGET }, rows, counted, rounds };
  out.environment = environment(loadavgAtStart, ['miniflare', 'wrangler']);
  log(`wrote ${writeOut('usage.json', out, (_k, v) => (typeof v === 'number' ? round2(v) : v))}`);
}

function summarize(scenarios, rounds) {
  const med = (s, f) => median(rounds.map((m) => f(m[s])));
  return scenarios.map((s) => ({
    scenario: s,
    onRps: med(s, (x) => x.on.rps),
    offRps: med(s, (x) => x.off.rps),
    onP50: med(s, (x) => x.on.p50),
    offP50: med(s, (x) => x.off.p50),
    onCpuUs: med(s, (x) => x.on.cpuUs),
    offCpuUs: med(s, (x) => x.off.cpuUs),
    ratio: med(s, (x) => x.on.rps / x.off.rps),
    cpuRatio: med(s, (x) => x.off.cpuUs / x.on.cpuUs),
    onCeiling: med(s, (x) => x.on.rps / x.ceiling.rps),
    offCeiling: med(s, (x) => x.off.rps / x.ceiling.rps),
  }));
}

function report(rows) {
  const lines = [
    `warm prompts/get ${GET_PROMPT}, ${CONNECTIONS} connections, medians of ${ROUNDS} rounds of A B B A x ${SECONDS} s`,
    '',
    '| Scenario | on req/s | off req/s | on p50 ms | off p50 ms | on CPU µs/req | off CPU µs/req | on ÷ off (req/s) | off ÷ on (CPU) | on / off x ceiling | target |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
  ];
  for (const r of rows) {
    const verdict = r.ratio >= TARGET ? `≥ ${fmtX(TARGET)} met` : `≥ ${fmtX(TARGET)} MISSED`;
    lines.push(
      `| ${r.scenario} | ${fmtInt(r.onRps)} | ${fmtInt(r.offRps)} | ${fmtMs(r.onP50, 2)} | ${fmtMs(r.offP50, 2)} | ` +
        `${fmtInt(r.onCpuUs)} | ${fmtInt(r.offCpuUs)} | ${fmtX(r.ratio)} | ${fmtX(r.cpuRatio)} | ` +
        `${fmtX(r.onCeiling)} / ${fmtX(r.offCeiling)} | ${verdict} |`,
    );
  }
  return lines.join('\n');
}

h.runMain(main);
