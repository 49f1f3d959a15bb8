/**
 * Cold start, on fresh instances: `new Miniflare()` → ready → first successful response, for
 * the gateway (`initialize`) and, alternating with it, for the bare-Hono ceiling Worker (its fixed
 * answer): the ratio of the two is what the gateway's size, bindings and start-up work add. Then,
 * for the gateway, the first in-session request, the first
 * `prompts/list` (catalog cold read) and a second, warm one. The catalog is seeded after the
 * `initialize` (which reads no KV), so seeding is not in the cold start. An unmeasured pair
 * runs first.
 */
import { performance } from 'node:perf_hooks';
import { fetchText } from '../lib/http.mjs';
import { JSON_HEADERS, PROTOCOL, rpcResult } from '../lib/jsonrpc.mjs';
import { seedCatalog } from '../lib/seed.mjs';
import { median, round2 } from '../lib/stats.mjs';
import { ceilingOptions } from '../lib/miniflare-options.mjs';
import { startMiniflare } from '../lib/start-target.mjs';
import { samePrompts } from './checks.mjs';
import { BODY } from './settings.mjs';
import { gatewayOptions } from './targets.mjs';

async function coldStart(h, build, wcfg, i) {
  const t0 = performance.now();
  const inst = await startMiniflare(h, gatewayOptions(build, wcfg), `cold-start gateway #${i}`);
  const readyMs = performance.now() - t0;
  try {
    const init = await fetchText(inst.url, { body: BODY.initialize });
    const coldStartMs = performance.now() - t0;
    rpcResult(init, 'cold start: initialize');
    const sid = init.headers['mcp-session-id'];
    await seedCatalog(inst.mf);
    const headers = { ...JSON_HEADERS, 'mcp-protocol-version': PROTOCOL, 'mcp-session-id': sid };
    const ping = await fetchText(inst.url, { headers, body: BODY.ping }); // first in-session request
    rpcResult(ping, 'cold start: ping');
    const list1 = await fetchText(inst.url, { headers, body: BODY.list }); // first catalog use: KV read + compile + page build
    samePrompts(rpcResult(list1, 'cold start: first prompts/list'));
    const list2 = await fetchText(inst.url, { headers, body: BODY.list });
    rpcResult(list2, 'cold start: second prompts/list');
    return {
      readyMs,
      coldStartMs,
      initializeMs: init.ms,
      firstPingMs: ping.ms,
      firstListMs: list1.ms,
      secondListMs: list2.ms,
    };
  } finally {
    await inst.dispose();
  }
}

/** The bare Worker's cold start: new Miniflare() → ready → its first answer to the same POST. */
async function ceilingColdStart(h, ceilingBuild, wcfg, i) {
  const t0 = performance.now();
  const bodies = { CEILING_BODY: '{}', CEILING_GET_BODY: '{}' };
  const inst = await startMiniflare(h, ceilingOptions(ceilingBuild, wcfg, bodies), `cold-start ceiling #${i}`);
  const ceilingReadyMs = performance.now() - t0;
  try {
    const first = await fetchText(inst.url, { body: BODY.initialize });
    if (first.status !== 200) throw new Error(`cold start ceiling: HTTP ${first.status}`);
    return { ceilingReadyMs, ceilingFirstMs: first.ms, ceilingColdMs: performance.now() - t0 };
  } finally {
    await inst.dispose();
  }
}

/**
 * `count` cold starts of each, alternating; resolves { cold (every gateway run, with the ceiling's
 * beside it and their ratio), coldMedian (null when none) }.
 */
export async function coldStarts(h, build, wcfg, count, ceilingBuild) {
  const cold = [];
  // One unmeasured pair first: the process's first Miniflare pays once for what every later one
  // reuses (module loading, the first workerd spawn), and it would always be the ceiling's.
  if (count > 0) {
    await ceilingColdStart(h, ceilingBuild, wcfg, 0);
    await coldStart(h, build, wcfg, 0);
  }
  for (let i = 1; i <= count; i++) {
    const ceiling = await ceilingColdStart(h, ceilingBuild, wcfg, i);
    const run = await coldStart(h, build, wcfg, i);
    cold.push({ ...run, ...ceiling, coldRatio: run.coldStartMs / ceiling.ceilingColdMs });
    h.log(`cold start #${i}: ${JSON.stringify(cold.at(-1), (_k, v) => (typeof v === 'number' ? round2(v) : v))}`);
  }
  const coldMedian = cold.length
    ? Object.fromEntries(Object.keys(cold[0]).map((k) => [k, median(cold.map((c) => c[k]))]))
    : null;
  return { cold, coldMedian };
}
