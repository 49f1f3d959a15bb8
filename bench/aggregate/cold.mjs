/**
 * The cold half of `npm run bench:aggregate`: on fresh AGGREGATED instances, each upstream's own
 * cold sequence timed from Node (one by one, then all at once), then the gateway's first
 * prompts/list, and where its time went from the upstreams' own request logs. Target: the
 * median cold list is at most the slowest upstream (max of per-upstream medians) + 15 ms.
 */
import { performance } from 'node:perf_hooks';
import { sleep } from '../lib/async.mjs';
import { fmtMs } from '../lib/format.mjs';
import { rpcResult } from '../lib/jsonrpc.mjs';
import { median, round2 as r2 } from '../lib/stats.mjs';
import { checkList, list, startGateway } from './gateway.mjs';
import { COLD_DISCARD, COLD_RUNS, COLD_TARGET_MS } from './settings.mjs';
import { directSequence } from './upstreams.mjs';

/** Per upstream, relative to the list request's start (`t0`, on the upstreams' clock). */
function upstreamSpans(upstreams, logs, t0) {
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
  return per;
}

async function coldRun(h, build, wcfg, upstreams, i) {
  const g = await startGateway(h, build, wcfg, upstreams, `cold gateway #${i}`);
  try {
    // Each upstream's own cold sequence, measured from Node just before (sequentially), then all three at once.
    const direct = {};
    for (const u of upstreams) direct[u.id] = await directSequence(u);
    // The untimed legacy check (the probe) runs before each timed sequence, so the span is the longest sequence.
    const par = await Promise.all(upstreams.map((u) => directSequence(u)));
    await sleep(50);
    const mark = await Promise.all(upstreams.map(async (u) => (await u.readLog(1e9)).count));
    const cold = await list(g);
    const t0 = cold.t0 + performance.timeOrigin; // the list request's start, on the upstreams' clock
    const logs = await Promise.all(upstreams.map((u, k) => u.readLog(mark[k])));
    checkList(rpcResult(cold, `${g.name}: cold prompts/list`, 1), upstreams, `${g.name}: cold prompts/list`);
    const per = upstreamSpans(upstreams, logs, t0);
    const firstArrival = Math.min(...Object.values(per).map((p) => p.firstArrival));
    const lastFinish = Math.max(...Object.values(per).map((p) => p.lastFinish));
    const warm = await list(g);
    checkList(rpcResult(warm, `${g.name}: second prompts/list`, 1), upstreams, `${g.name}: second prompts/list`);
    return {
      coldListMs: cold.ms,
      secondListMs: warm.ms,
      direct: Object.fromEntries(Object.entries(direct).map(([k, v]) => [k, { totalMs: v.totalMs, steps: v.steps }])),
      slowestDirectMs: Math.max(...Object.values(direct).map((d) => d.totalMs)),
      parallelDirectMs: Math.max(...par.map((p) => p.totalMs)),
      parallelDirectPerUpstreamMs: par.map((p) => p.totalMs),
      beforeFirstUpstreamMs: firstArrival,
      upstreamWindowMs: lastFinish - firstArrival,
      afterLastUpstreamMs: cold.ms - lastFinish,
      perUpstream: per,
      readyMs: g.readyMs,
      publishMs: g.publishMs,
      workerdWarnings: g.logs.length,
    };
  } finally {
    await g.dispose();
  }
}

/** Medians of the kept runs, and the cold target. */
function summarizeCold(cold, upstreams) {
  const med = (f) => median(cold.map(f));
  const perUpstreamDirect = Object.fromEntries(upstreams.map((u) => [u.id, med((c) => c.direct[u.id].totalMs)]));
  const slowestId = Object.entries(perUpstreamDirect).sort((a, b) => b[1] - a[1])[0][0];
  const stepsOf = (u) =>
    Object.fromEntries(Object.keys(cold[0].direct[u.id].steps).map((s) => [s, med((c) => c.direct[u.id].steps[s])]));
  const s = {
    coldListMs: med((c) => c.coldListMs),
    slowestUpstream: slowestId,
    slowestUpstreamMs: perUpstreamDirect[slowestId],
    perUpstreamDirectMs: perUpstreamDirect,
    perUpstreamDirectStepsMs: Object.fromEntries(upstreams.map((u) => [u.id, stepsOf(u)])),
    parallelDirectMs: med((c) => c.parallelDirectMs),
    beforeFirstUpstreamMs: med((c) => c.beforeFirstUpstreamMs),
    upstreamWindowMs: med((c) => c.upstreamWindowMs),
    afterLastUpstreamMs: med((c) => c.afterLastUpstreamMs),
    perUpstreamSpanMs: Object.fromEntries(upstreams.map((u) => [u.id, med((c) => c.perUpstream[u.id].span)])),
    secondListMs: med((c) => c.secondListMs),
  };
  s.differenceMs = s.coldListMs - s.slowestUpstreamMs;
  s.met = s.differenceMs <= COLD_TARGET_MS;
  return s;
}

/** COLD_DISCARD discarded runs, then COLD_RUNS kept; resolves { cold, discarded, coldSummary }. */
export async function coldRuns(h, build, wcfg, upstreams) {
  const cold = [];
  const discarded = [];
  for (let i = 1; i <= COLD_DISCARD + COLD_RUNS; i++) {
    const r = await coldRun(h, build, wcfg, upstreams, i);
    (i <= COLD_DISCARD ? discarded : cold).push(r);
    h.log(
      `cold #${i}${i <= COLD_DISCARD ? ' (discarded)' : ''}: list ${fmtMs(r.coldListMs)} ms; slowest upstream direct ${fmtMs(r.slowestDirectMs)} ms (parallel ${fmtMs(r.parallelDirectMs)}); ` +
        `before 1st upstream req ${fmtMs(r.beforeFirstUpstreamMs)}, upstream window ${fmtMs(r.upstreamWindowMs)}, after last upstream reply ${fmtMs(r.afterLastUpstreamMs)} ms`,
    );
  }
  return { cold, discarded, coldSummary: summarizeCold(cold, upstreams) };
}
