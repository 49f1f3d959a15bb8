/**
 * What `npm run bench:fanout` prints (medians across runs per (N, coalesce): delivery times,
 * delivered/missing/duplicates, memory; and where the time goes) and writes to
 * bench/out/fanout.json (every run).
 */
import os from 'node:os';
import { cpuLine, fmtLoad, fmtMs } from '../lib/format.mjs';
import { environment } from '../lib/output.mjs';
import { pkgVersion } from '../lib/paths.mjs';
import { median, round2 } from '../lib/stats.mjs';
import { catalogRouteUsed } from './catalog.mjs';
import * as S from './settings.mjs';

export function summarize(results, sizes, coalesces) {
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
        `${r.delivered} / ${r.missing} / ${r.duplicates} | ${fmtMs(r.memBeforeMiB)} → ${fmtMs(r.memAfterMiB)} (+${fmtMs(r.memAfterMiB - r.memBeforeMiB)}) |`,
    );
  }
  const b = [
    '| N | coalesce ms | admin write response ms | feed done at ms (workerd clock) | feed fan-out ms (ChangeFeed log) | last − coalesce ms | last per run ms | workerd / node CPU ms, PUT → last | open N sessions ms | attach N streams ms |',
    '|---:|---:|---:|---:|---:|---:|---|---|---:|---:|',
  ];
  for (const r of rows) {
    b.push(
      `| ${r.n} | ${r.coalesceMs} | ${fmtMs(r.putMs)} | ${fmtMs(r.feedDoneAtMs)} | ${fmtMs(r.feedFanoutMs)} | ${fmtMs(r.lastMs - r.coalesceMs)} | ` +
        `${r.lastPerRun.map((x) => fmtMs(x)).join(', ')} | ${fmtMs(r.workerdCpuMs)} / ${fmtMs(r.nodeCpuMs)} | ${Math.round(r.initMs)} | ${Math.round(r.attachMs)} |`,
    );
  }
  return { main: a.join('\n'), breakdown: b.join('\n') };
}

function intro({ startedAt, loadavgAtStart, rows, wcfg }) {
  const memSource = rows[0]?.memSource;
  const shards = `${S.SHARDS_OVERRIDE ?? wcfg.vars.REGISTRY_SHARDS}${S.SHARDS_OVERRIDE ? ' (FANOUT_SHARDS)' : ''}`;
  const memory =
    memSource === 'workerd'
      ? 'RSS of the workerd child process of the Miniflare instance (/proc)'
      : "Node's own RSS (the workerd process was not found)";
  return [
    `## promptgate fan-out benchmark (${startedAt.toISOString()})`,
    '',
    `Miniflare ${pkgVersion('miniflare')} (HTTP server on loopback), undici ${pkgVersion('undici')} client, Node ${process.version}, ` +
      `${cpuLine()}. One catalog change (${catalogRouteUsed() ?? 'n/a'}) per run; times are ms from just ` +
      `before the PUT was sent to each stream's first notifications/prompts/list_changed; first/p50/p99/last are per run, then the ` +
      `median over ${S.RUNS} fresh instance(s); delivered/missing/duplicates are summed over runs (missing: nothing within ` +
      `${S.DELIVERY_TIMEOUT_MS} ms; duplicate: a second list_changed within the ${S.DUP_WINDOW_MS} ms after). REGISTRY_SHARDS ` +
      `${shards}, Durable Object storage: SQLite files under ${S.TMP_BASE}. Memory: ${memory}, ` +
      `after the N sessions exist, before and after the N streams attach. Load average at start ${fmtLoad(loadavgAtStart)}, ` +
      `at end ${fmtLoad(os.loadavg())}.`,
  ];
}

/** The printed report. `r`: { startedAt, loadavgAtStart, rows, wcfg, configured }. */
export function reportText(r) {
  const t = tables(r.rows);
  const out = [
    ...intro(r),
    '',
    t.main,
    '',
    'Where the time goes (medians): admin write response = the catalog write (KV, and the CatalogWriter object where the build has one) + ChangeFeed.publish; "feed done at" = workerd timestamp of the ' +
      "ChangeFeed's `catalog change fanned out` log, relative to the PUT (includes the coalescing window); feed fan-out = that log's " +
      'own `ms` (every shard logged the change and sent it to its streams).',
    '',
    t.breakdown,
  ];
  const target = r.rows.find((x) => x.n === 1000 && x.coalesceMs === r.configured);
  if (target) {
    out.push(
      '',
      `Target (N=1000, NOTIFY_COALESCE_MS=${r.configured}: last delivery ≤ 1000 ms, nothing lost or duplicated): ` +
        `${target.lastMs <= 1000 && !target.missing && !target.duplicates ? 'MET' : 'MISSED'} (last ${fmtMs(target.lastMs)} ms, ` +
        `missing ${target.missing}, duplicates ${target.duplicates}).`,
    );
  }
  return out.join('\n');
}

/** bench/out/fanout.json. `r` also carries { coalesces, results, build }. */
export function reportJson(r) {
  return {
    startedAt: r.startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    settings: {
      sizes: S.SIZES,
      runs: S.RUNS,
      coalesceMs: r.coalesces,
      initConcurrency: S.INIT_CONCURRENCY,
      openConcurrency: S.OPEN_CONCURRENCY,
      quiesceMs: S.QUIESCE_MS,
      deliveryTimeoutMs: S.DELIVERY_TIMEOUT_MS,
      dupWindowMs: S.DUP_WINDOW_MS,
      registryShards: S.SHARDS_OVERRIDE ?? Number(r.wcfg.vars.REGISTRY_SHARDS),
      catalogRoute: catalogRouteUsed(),
      doStorageDir: S.TMP_BASE,
      memorySource: r.rows[0]?.memSource,
    },
    environment: environment(r.loadavgAtStart, ['miniflare', 'wrangler', 'undici', 'hono']),
    bundle: { rawBytes: r.build.rawBytes, buildMs: r.build.buildMs },
    summary: r.rows,
    runs: r.results,
  };
}
