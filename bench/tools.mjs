/**
 * `npm run bench:tools`: what the tools mirror's list costs next to the prompt list it mirrors.
 * One gateway instance on Miniflare with TOOLS_MIRROR=on (the 20 bench prompts, one page), a warm
 * `tools/list` and `prompts/list` in both eras (legacy in session, 2026-07-28 stateless), measured
 * A B B A in every round (which goes first alternates by round) so a slow spell of the shared
 * machine weighs on both. The bare-Hono ceiling (one fixed prompts/list body) runs in the same
 * rounds, and the SDK peer (`targets/peer.mjs --tools`: McpServer with each prompt also registered
 * as a tool) answers both lists in the legacy rounds. Each figure is the median over rounds.
 * Target (issue 15): tools/list >= 0.9x of prompts/list (req/s) in the same run.
 *
 * Knobs: TOOLS_BENCH_SECONDS (3, per measurement), TOOLS_BENCH_ROUNDS (5), TOOLS_BENCH_CONNECTIONS (10),
 * TOOLS_BENCH_TIMEOUT_SECONDS (900). Prints a markdown table; writes bench/out/tools.json.
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import { buildCeiling, buildGateway } from './lib/build.mjs';
import { envConnections, envNum } from './lib/env.mjs';
import { fmtInt, fmtMs, fmtX } from './lib/format.mjs';
import { createHarness } from './lib/harness.mjs';
import { fetchText } from './lib/http.mjs';
import { JSON_HEADERS, MODERN, MODERN_META, PROTOCOL, rpc, rpcResult } from './lib/jsonrpc.mjs';
import { load, measureCpu, pooled } from './lib/load.mjs';
import { openSession } from './lib/mcp-session.mjs';
import { ceilingOptions, gatewayBaseOptions } from './lib/miniflare-options.mjs';
import { environment, writeOut } from './lib/output.mjs';
import { listResult, PROMPTS } from './lib/prompts.mjs';
import { seedCatalog } from './lib/seed.mjs';
import { startMiniflare, startPeer } from './lib/start-target.mjs';
import { median, round2 } from './lib/stats.mjs';
import { readWranglerConfig } from './lib/wrangler-config.mjs';

const SECONDS = envNum('TOOLS_BENCH_SECONDS', 3, { min: 1 });
const ROUNDS = envNum('TOOLS_BENCH_ROUNDS', 5, { min: 1 });
const [CONNECTIONS] = envConnections('TOOLS_BENCH_CONNECTIONS', '10');
const TIMEOUT_S = envNum('TOOLS_BENCH_TIMEOUT_SECONDS', 900, { min: 30 });
const TARGET = 0.9;
const SIGNING_SECRET = 'tools-bench-signing-secret';
const NAMES = PROMPTS.map((p) => p.name);

const h = createHarness({ name: 'tools', timeoutS: TIMEOUT_S, timeoutVar: 'TOOLS_BENCH_TIMEOUT_SECONDS' });
const { log } = h;

/** A plan per (era, list) on one target: legacy in session (or stateless for the peer), modern stateless. */
function plansFor(t, label) {
  const legacy = { ...JSON_HEADERS, 'mcp-protocol-version': PROTOCOL };
  if (t.sessionId) legacy['mcp-session-id'] = t.sessionId;
  const modern = (method) => ({ ...JSON_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': method });
  const plan = (headers, method, params) => ({ label, url: t.url, pid: t.pid, headers, body: rpc(method, params) });
  return {
    prompts: plan(legacy, 'prompts/list', {}),
    tools: plan(legacy, 'tools/list', {}),
    'modern-prompts': plan(modern('prompts/list'), 'prompts/list', { _meta: MODERN_META }),
    'modern-tools': plan(modern('tools/list'), 'tools/list', { _meta: MODERN_META }),
  };
}

/** One request per plan, checked (all 20 prompts, or all 20 as tools), its exact reply kept for every measured one. */
async function verify(plan, id) {
  const r = await fetchText(plan.url, { headers: plan.headers, body: plan.body });
  const result = rpcResult(r, id);
  plan.expectBody = r.text;
  if (id.startsWith('ceiling')) return;
  if (id.includes('tools'))
    return assert.deepEqual(
      result.tools.map((x) => x.name),
      NAMES,
      `${id}: not every tool`,
    );
  if (id.startsWith('peer'))
    return assert.deepEqual(
      result.prompts.map((x) => x.name),
      NAMES,
      `${id}: prompts`,
    );
  const page = { ...result };
  for (const k of ['_meta', 'resultType', 'ttlMs', 'cacheScope']) delete page[k];
  assert.deepEqual(page, listResult(), `${id}: not the expected list`);
}

const measure = (plan, what) => measureCpu(h, plan, CONNECTIONS, SECONDS, what);

/** One round of one era: ceiling, then prompts and tools A B B A, then (legacy) the peer's two lists. */
async function round(plans, era, r) {
  const [p, t] = era === 'legacy' ? ['prompts', 'tools'] : ['modern-prompts', 'modern-tools'];
  const what = (x) => `${x} ${era} round ${r + 1}`;
  const ceiling = await measure(plans.ceiling[p], what('ceiling'));
  const [a, b] = r % 2 ? [t, p] : [p, t];
  const runs = { [a]: [await measure(plans.gateway[a], what(a))], [b]: [await measure(plans.gateway[b], what(b))] };
  runs[b].push(await measure(plans.gateway[b], what(b)));
  runs[a].push(await measure(plans.gateway[a], what(a)));
  const m = { ceiling, prompts: pooled(runs[p]), tools: pooled(runs[t]) };
  if (era === 'legacy') {
    m.peerPrompts = await measure(plans.peer.prompts, what('peer prompts'));
    m.peerTools = await measure(plans.peer.tools, what('peer tools'));
  }
  log(
    `round ${r + 1} ${era}: ${Object.entries(m)
      .map(([k, x]) => `${k} ${fmtInt(x.rps)} req/s`)
      .join(', ')}`,
  );
  return m;
}

async function main() {
  const loadavgAtStart = os.loadavg();
  log(`${ROUNDS} round(s) x 2 eras x (ceiling + 2 x prompts + 2 x tools [+ peer x 2]) x ${SECONDS} s`);
  const tmp = h.makeTempDir('promptgate-tools-bench-');
  const [wcfg, build, ceilingBuild] = await Promise.all([
    readWranglerConfig(h, { kv: ['PROMPTS'], dos: { SESSIONS: 'SessionObject' } }),
    buildGateway(h, tmp),
    buildCeiling(tmp),
  ]);
  const ceilingBody = JSON.stringify({ jsonrpc: '2.0', id: 1, result: listResult() });
  const ceiling = await startMiniflare(h, ceilingOptions(ceilingBuild, wcfg, { CEILING_BODY: ceilingBody }), 'ceiling');
  const bindings = { ...wcfg.vars, SIGNING_SECRET, RATE_LIMITS: 'off', TOOLS_MIRROR: 'on' };
  const gw = await startMiniflare(h, { ...gatewayBaseOptions(build, wcfg, 'tools'), bindings }, 'gateway');
  await seedCatalog(gw.mf);
  const { sessionId } = await openSession(fetchText, gw.url, {});
  const peer = await startPeer(h, ['--tools']);
  const plans = {
    gateway: plansFor({ ...gw, sessionId }, 'gateway'),
    ceiling: plansFor({ ...ceiling, sessionId }, 'ceiling'),
    peer: plansFor(peer, 'peer'),
  };
  const checked = [
    ...['prompts', 'tools', 'modern-prompts', 'modern-tools'].map((s) => ['gateway', s]),
    ['ceiling', 'prompts'],
    ['ceiling', 'modern-prompts'],
    ['peer', 'prompts'],
    ['peer', 'tools'],
  ];
  for (const [t, s] of checked) await verify(plans[t][s], `${t} ${s}`);
  for (const [t, s] of checked) await load(h, plans[t][s], CONNECTIONS, 1);
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++)
    rounds.push({ legacy: await round(plans, 'legacy', r), modern: await round(plans, 'modern', r) });
  const rows = summarize(rounds);
  console.log(report(rows));
  const out = { startedAt: new Date(), settings: { SECONDS, ROUNDS, CONNECTIONS, TARGET }, rows, rounds };
  out.environment = environment(loadavgAtStart, ['miniflare', 'wrangler']);
  log(`wrote ${writeOut('tools.json', out, (_k, v) => (typeof v === 'number' ? round2(v) : v))}`);
}

function summarize(rounds) {
  return ['legacy', 'modern'].map((era) => {
    const med = (f) => median(rounds.map((m) => f(m[era])));
    return {
      era,
      promptsRps: med((x) => x.prompts.rps),
      toolsRps: med((x) => x.tools.rps),
      promptsP50: med((x) => x.prompts.p50),
      toolsP50: med((x) => x.tools.p50),
      promptsCpuUs: med((x) => x.prompts.cpuUs),
      toolsCpuUs: med((x) => x.tools.cpuUs),
      ratio: med((x) => x.tools.rps / x.prompts.rps),
      cpuRatio: med((x) => x.prompts.cpuUs / x.tools.cpuUs),
      promptsCeiling: med((x) => x.prompts.rps / x.ceiling.rps),
      toolsCeiling: med((x) => x.tools.rps / x.ceiling.rps),
      ...(era === 'legacy' && {
        promptsPeer: med((x) => x.prompts.rps / x.peerPrompts.rps),
        toolsPeer: med((x) => x.tools.rps / x.peerTools.rps),
        peerRatio: med((x) => x.peerTools.rps / x.peerPrompts.rps),
      }),
    };
  });
}

function report(rows) {
  const lines = [
    `warm tools/list vs prompts/list (20 prompts, one page), TOOLS_MIRROR=on, ${CONNECTIONS} connections, ` +
      `medians of ${ROUNDS} rounds of A B B A x ${SECONDS} s`,
    '',
    '| Era | prompts req/s | tools req/s | prompts p50 ms | tools p50 ms | prompts CPU µs/req | tools CPU µs/req | ' +
      'tools ÷ prompts (req/s) | prompts ÷ tools (CPU) | prompts / tools x ceiling | prompts / tools x peer | ' +
      'peer tools ÷ prompts | target |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---|',
  ];
  for (const r of rows) {
    const verdict = r.ratio >= TARGET ? `≥ ${fmtX(TARGET)} met` : `≥ ${fmtX(TARGET)} MISSED`;
    const peer = r.era === 'legacy' ? `${fmtX(r.promptsPeer)} / ${fmtX(r.toolsPeer)}` : 'n/a (peer is 2025-era)';
    lines.push(
      `| ${r.era} | ${fmtInt(r.promptsRps)} | ${fmtInt(r.toolsRps)} | ${fmtMs(r.promptsP50, 2)} | ` +
        `${fmtMs(r.toolsP50, 2)} | ${fmtInt(r.promptsCpuUs)} | ${fmtInt(r.toolsCpuUs)} | ${fmtX(r.ratio)} | ` +
        `${fmtX(r.cpuRatio)} | ${fmtX(r.promptsCeiling)} / ${fmtX(r.toolsCeiling)} | ${peer} | ` +
        `${r.era === 'legacy' ? fmtX(r.peerRatio) : 'n/a'} | ${verdict} |`,
    );
  }
  return lines.join('\n');
}

h.runMain(main);
