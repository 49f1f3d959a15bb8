/**
 * One fanout run: on a fresh instance, publish the initial catalog and wait for its (empty)
 * fan-out, open N sessions and N streams, wait for quiescence, make ONE catalog change and
 * record, per stream, when its first list_changed arrives (ms after the PUT was sent); then
 * watch FANOUT_DUP_WINDOW_MS more for duplicates.
 */
import { performance } from 'node:perf_hooks';
import { sleep, withTimeout } from '../lib/async.mjs';
import { fmtMs } from '../lib/format.mjs';
import { cpuMs } from '../lib/proc.mjs';
import { percentile } from '../lib/stats.mjs';
import { CHANGED_CATALOG, INITIAL_CATALOG, putCatalog } from './catalog.mjs';
import { attachStreams, instanceReady, memorySample, openSessions, startInstance, tagged } from './phases.mjs';
import { DELIVERY_TIMEOUT_MS, DUP_WINDOW_MS, QUIESCE_MS } from './settings.mjs';

export async function runOnce(h, build, wcfg, n, coalesceMs, run) {
  const tag = `N=${n} coalesce=${coalesceMs} run ${run}`;
  const inst = startInstance(build, wcfg, n, coalesceMs);
  const untrack = h.onCleanup(`miniflare ${tag}`, inst.dispose);
  try {
    const { base, mcpUrl, workerd } = await instanceReady(inst, tag);
    // Initial catalog, and its (empty) fan-out out of the way.
    const g0 = await putCatalog(inst.agent, base, INITIAL_CATALOG).catch(tagged(tag, 'initial catalog'));
    if (!(await inst.logs.fanoutOf(g0, 15_000)))
      throw new Error(`${tag}: no fan-out log for the initial catalog (generation ${g0})`);

    const { sids, initMs } = await openSessions(h, inst.agent, mcpUrl, n, tag);
    await sleep(200);
    const memBefore = memorySample(workerd);
    const { streams, allChangedP, attachMs } = await attachStreams(h, inst, mcpUrl, sids, tag);
    await sleep(QUIESCE_MS);
    if (streams.some((s) => s.ended))
      throw new Error(`${tag}: ${streams.filter((s) => s.ended).length} stream(s) ended before the change`);
    const early = streams.filter((s) => s.events.length).length;
    if (early) throw new Error(`${tag}: ${early} stream(s) got list_changed before the change`);
    const memAfter = memorySample(workerd);

    const change = await makeChange(inst, base, workerd, allChangedP, tag);
    const result = {
      n,
      coalesceMs,
      run,
      ...deliveries(streams, change.t0, n, coalesceMs),
      putMs: change.putMs,
      waitedMs: change.waitedMs,
      generation: change.generation,
      feed: feedFigures(change),
      cpu: change.cpu,
      initMs,
      attachMs,
      memory: {
        source: memBefore.source,
        beforeMiB: memBefore.rssMiB,
        afterMiB: memAfter.rssMiB,
        nodeBeforeMiB: memBefore.nodeRssMiB,
        nodeAfterMiB: memAfter.nodeRssMiB,
      },
      workerdPid: workerd?.pid ?? null,
      workerErrors: inst.logs.errors.length,
    };
    logResult(h, tag, result, change.fan, memBefore, memAfter);
    return result;
  } finally {
    untrack();
    await withTimeout(inst.dispose(), 30_000, `${tag}: dispose`);
  }
}

/** The change: t0 just before the PUT is sent; waits for every stream's first event (bounded), then the duplicate window. */
async function makeChange(inst, base, workerd, allChangedP, tag) {
  const cpu0 = { workerd: workerd ? cpuMs(workerd.pid) : NaN, node: process.cpuUsage() };
  const wall0 = Date.now();
  const t0 = performance.now();
  const generation = await putCatalog(inst.agent, base, CHANGED_CATALOG).catch(tagged(tag, 'catalog change'));
  const putMs = performance.now() - t0;
  await Promise.race([allChangedP, sleep(Math.max(0, t0 + DELIVERY_TIMEOUT_MS - performance.now()))]);
  const waitedMs = performance.now() - t0;
  // CPU spent from the PUT to the last delivery (or the timeout): is workerd saturated?
  const nodeCpu = process.cpuUsage(cpu0.node);
  const cpu = {
    workerdMs: workerd ? cpuMs(workerd.pid) - cpu0.workerd : NaN,
    nodeMs: (nodeCpu.user + nodeCpu.system) / 1000,
    wallMs: waitedMs,
  };
  // Every stream gets at least DUP_WINDOW_MS after its first event to show a second one.
  await sleep(DUP_WINDOW_MS);
  const fan = await inst.logs.fanoutOf(generation, 1000);
  return { t0, wall0, putMs, waitedMs, cpu, generation, fan };
}

/** First-delivery times across the streams, and what went wrong on any of them. */
function deliveries(streams, t0, n, coalesceMs) {
  const allFirsts = streams.filter((s) => s.events.length).map((s) => s.events[0].at - t0);
  // Later than the bound counts as missing (reported apart as `late`).
  const firsts = allFirsts.filter((ms) => ms <= DELIVERY_TIMEOUT_MS).sort((a, b) => a - b);
  return {
    delivered: firsts.length,
    missing: n - firsts.length,
    late: allFirsts.length - firsts.length,
    duplicates: streams.filter((s) => s.events.length > 1).length,
    badIds: streams.reduce((a, s) => a + s.badIds, 0),
    streamErrors: streams.filter((s) => s.error || s.ended).length,
    firstMs: firsts[0] ?? NaN,
    p50Ms: percentile(firsts, 0.5),
    p99Ms: percentile(firsts, 0.99),
    lastMs: firsts.at(-1) ?? NaN,
    /** Last delivery minus the coalescing window: roughly the fan-out itself. */
    lastMinusCoalesceMs: (firsts.at(-1) ?? NaN) - coalesceMs,
  };
}

/** The ChangeFeed's own log line of the change, relative to the PUT. */
function feedFigures({ fan, wall0, t0 }) {
  if (!fan) return null;
  return {
    streams: fan.streams,
    listeners: fan.listeners,
    rowsWritten: fan.rowsWritten,
    shards: fan.shards,
    shardFailures: fan.shardFailures,
    fanoutMs: fan.ms,
    // workerd's clock (epoch ms) when the feed finished, relative to the PUT being sent.
    doneAtMs: Number.isFinite(fan.timestamp) ? fan.timestamp - wall0 : NaN,
    logSeenAtMs: fan.seenAt - t0,
  };
}

function logResult(h, tag, r, fan, memBefore, memAfter) {
  const { cpu } = r;
  h.log(
    `${tag}: delivered ${r.delivered}/${r.n} (missing ${r.missing}, dup ${r.duplicates}, bad ids ${r.badIds}, stream errors ${r.streamErrors}); ` +
      `first ${fmtMs(r.firstMs)} p50 ${fmtMs(r.p50Ms)} p99 ${fmtMs(r.p99Ms)} last ${fmtMs(r.lastMs)} ms; ` +
      `PUT ${fmtMs(r.putMs)} ms, feed fan-out ${fan ? `${fan.ms} ms (${fan.shards} shards, ${fan.streams} streams, ${fan.rowsWritten} rows written)` : 'log missing'}; ` +
      `CPU during delivery: workerd ${fmtMs(cpu.workerdMs)} ms, node ${fmtMs(cpu.nodeMs)} ms in ${fmtMs(r.waitedMs)} ms; ` +
      `init ${Math.round(r.initMs)} ms, attach ${Math.round(r.attachMs)} ms; ${memBefore.source} RSS ${fmtMs(memBefore.rssMiB)} -> ${fmtMs(memAfter.rssMiB)} MiB`,
  );
}
