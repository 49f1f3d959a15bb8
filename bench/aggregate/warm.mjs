/**
 * The warm half of `npm run bench:aggregate`: LOCAL (no upstreams) vs AGGREGATED (cold path
 * already done), in-session prompts/list, every body checked first, autocannon in interleaved
 * rounds (the order alternates per round). Target: AGGREGATED/LOCAL req/s >= 0.8, the median
 * of per-round ratios, at every connection count.
 */
import { fmtInt, fmtMs } from '../lib/format.mjs';
import { rpcResult } from '../lib/jsonrpc.mjs';
import { assertClean, load } from '../lib/load.mjs';
import { median, round2 as r2 } from '../lib/stats.mjs';
import { checkList, list, startGateway, verifiedPlan } from './gateway.mjs';
import {
  CONNECTIONS,
  ROUNDS,
  SECONDS,
  UPSTREAM_COUNT,
  UPSTREAM_PROMPTS,
  WARMUP_SECONDS,
  WARM_TARGET_RATIO,
} from './settings.mjs';

/** One autocannon run; only a clean one counts. */
async function measure(h, plan, c, seconds) {
  const m = await load(h, plan, c, seconds);
  assertClean(m, `load on ${plan.url} c=${c}`);
  return { rps: m.rps, total: m.total, p50: m.p50, p99: m.p99 };
}

async function rounds(h, plans) {
  const measurements = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const c of CONNECTIONS) {
      const order = round % 2 ? ['local', 'aggregated'] : ['aggregated', 'local'];
      for (const t of order) {
        const m = await measure(h, plans[t], c, SECONDS);
        measurements.push({ round, target: t, connections: c, ...m });
        h.log(`round ${round} ${t} c=${c}: ${fmtInt(m.rps)} req/s, p50 ${fmtMs(m.p50)} ms, p99 ${fmtMs(m.p99)} ms`);
      }
    }
  }
  return measurements;
}

function warmRows(measurements, plans) {
  const rows = [];
  for (const c of CONNECTIONS) {
    const of = (t) => measurements.filter((m) => m.connections === c && m.target === t);
    const ratios = of('aggregated').map((a) => a.rps / of('local').find((l) => l.round === a.round).rps);
    for (const t of ['local', 'aggregated']) {
      const ms = of(t);
      rows.push({
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
  return rows;
}

/** Requests the upstreams saw since `mark`, by method (none are on the warm list path; the poll alarm may re-list). */
async function upstreamMethodsSince(upstreams, mark) {
  const methods = {};
  for (const [k, u] of upstreams.entries())
    for (const e of (await u.readLog(mark[k])).requests) methods[e.method] = (methods[e.method] ?? 0) + 1;
  return methods;
}

/** Resolves { rows, measurements, met, upstreamMethods, workerdWarnings }. */
export async function warmPhase(h, build, wcfg, upstreams) {
  h.log('starting LOCAL and AGGREGATED gateways…');
  const [local, agg] = await Promise.all([
    startGateway(h, build, wcfg, [], 'LOCAL'),
    startGateway(h, build, wcfg, upstreams, 'AGGREGATED'),
  ]);
  const first = await list(agg); // the cold path, done before any measurement
  checkList(rpcResult(first, 'AGGREGATED first prompts/list', 1), upstreams, 'AGGREGATED first prompts/list');
  const plans = { local: await verifiedPlan(local, []), aggregated: await verifiedPlan(agg, upstreams) };
  h.log(
    `verified: LOCAL ${plans.local.bytes} B body (20 prompts), AGGREGATED ${plans.aggregated.bytes} B body (${20 + UPSTREAM_COUNT * UPSTREAM_PROMPTS} prompts)`,
  );
  const mark = await Promise.all(upstreams.map(async (u) => (await u.readLog(1e9)).count));
  if (WARMUP_SECONDS)
    for (const p of Object.values(plans)) await measure(h, p, Math.max(...CONNECTIONS), WARMUP_SECONDS);
  const measurements = await rounds(h, plans);
  const upstreamMethods = await upstreamMethodsSince(upstreams, mark);
  const rows = warmRows(measurements, plans);
  const met = rows.filter((r) => r.target === 'aggregated').every((r) => r.ratio >= WARM_TARGET_RATIO);
  return { rows, measurements, met, upstreamMethods, workerdWarnings: [...local.logs, ...agg.logs] };
}
