/**
 * What `npm run bench:aggregate` prints (the cold runs and their target, the warm LOCAL vs
 * AGGREGATED table and its target) and writes to bench/out/aggregate.json.
 */
import { cpuLine, fmtInt, fmtLoad, fmtMs } from '../lib/format.mjs';
import { environment } from '../lib/output.mjs';
import { pkgVersion } from '../lib/paths.mjs';
import { median } from '../lib/stats.mjs';
import * as S from './settings.mjs';

const list = (o) =>
  Object.entries(o)
    .map(([k, v]) => `${k} ${fmtMs(v)}`)
    .join(', ');
const aggLabel = `AGGREGATED (${20 + S.UPSTREAM_COUNT * S.UPSTREAM_PROMPTS} prompts)`;

function coldLines({ cold, discarded, coldSummary: s }) {
  const out = [
    `### Cold: first prompts/list on a fresh AGGREGATED instance (${S.COLD_RUNS} runs${S.COLD_DISCARD ? `, after ${S.COLD_DISCARD} discarded` : ''})`,
    '',
  ];
  out.push(
    '| Run | cold list ms | slowest upstream direct ms | parallel direct (all 3) ms | before 1st upstream req ms | upstream window ms | after last upstream reply ms | 2nd list ms |',
  );
  out.push('|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const [i, c] of [...discarded, ...cold].entries()) {
    const run = i < S.COLD_DISCARD ? `${i + 1} (discarded)` : i + 1;
    out.push(
      `| ${run} | ${fmtMs(c.coldListMs)} | ${fmtMs(c.slowestDirectMs)} | ${fmtMs(c.parallelDirectMs)} | ${fmtMs(c.beforeFirstUpstreamMs)} | ${fmtMs(c.upstreamWindowMs)} | ${fmtMs(c.afterLastUpstreamMs)} | ${fmtMs(c.secondListMs)} |`,
    );
  }
  out.push(
    `| **median** | **${fmtMs(s.coldListMs)}** | ${fmtMs(median(cold.map((c) => c.slowestDirectMs)))} | ${fmtMs(s.parallelDirectMs)} | ${fmtMs(s.beforeFirstUpstreamMs)} | ${fmtMs(s.upstreamWindowMs)} | ${fmtMs(s.afterLastUpstreamMs)} | ${fmtMs(s.secondListMs)} |`,
    '',
  );
  out.push(
    `Slowest upstream (median of its direct cold sequence initialize→initialized→list): ${s.slowestUpstream} ${fmtMs(s.slowestUpstreamMs)} ms ` +
      `(per upstream: ${list(s.perUpstreamDirectMs)}; steps of ${s.slowestUpstream}: ${list(s.perUpstreamDirectStepsMs[s.slowestUpstream])}).`,
    `Upstream-side span of the gateway's own sequence during the cold list (first request arrival → last reply finished): ${list(s.perUpstreamSpanMs)} ms.`,
    '',
    `**Cold target: median cold list ${fmtMs(s.coldListMs)} ms − slowest upstream ${fmtMs(s.slowestUpstreamMs)} ms = ${s.differenceMs >= 0 ? '+' : ''}${fmtMs(s.differenceMs)} ms (target ≤ +${S.COLD_TARGET_MS} ms): ${s.met ? 'MET' : 'NOT MET'}.**`,
    '',
  );
  return out;
}

function warmLines({ cold, warm }) {
  const out = [
    `### Warm: in-session prompts/list, LOCAL vs AGGREGATED (${S.ROUNDS} interleaved rounds x ${S.SECONDS} s, medians)`,
    '',
  ];
  out.push('| Conns | Target | body bytes | req/s | p50 ms | p99 ms | req/s per round | AGGREGATED / LOCAL |');
  out.push('|---:|---|---:|---:|---:|---:|---|---:|');
  for (const r of warm.rows) {
    const ratio = r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}x`;
    out.push(
      `| ${r.connections} | ${r.target === 'local' ? 'LOCAL (20 prompts)' : aggLabel} | ${r.bodyBytes} | ${fmtInt(r.rps)} | ${fmtMs(r.p50)} | ${fmtMs(r.p99)} | ${r.rpsPerRound.join(' / ')} | ${ratio} |`,
    );
  }
  const methods = warm.upstreamMethods;
  const count = Object.values(methods).reduce((a, b) => a + b, 0);
  const why = count
    ? ` (${Object.entries(methods)
        .map(([m, n]) => `${n} ${m}`)
        .join(', ')}; expected from the UpstreamObject poll alarm (UPSTREAM_POLL_MS) or its change stream)`
    : '';
  out.push(
    '',
    `**Warm target: AGGREGATED/LOCAL ≥ ${S.WARM_TARGET_RATIO}x at every connection count: ${warm.met ? 'MET' : 'NOT MET'}.** ` +
      `Upstream requests during the warm phase: ${count}${why}. workerd warnings/errors: cold runs ${cold.reduce((n, c) => n + c.workerdWarnings, 0)}, warm ${warm.workerdWarnings.length}.`,
  );
  return out;
}

/** The printed report. `r`: { startedAt, loadavgAtStart, cold, discarded, coldSummary, warm }. */
export function reportText(r) {
  return [
    `## promptgate aggregated list benchmark (${r.startedAt.toISOString()})`,
    '',
    `Miniflare ${pkgVersion('miniflare')} on loopback, autocannon ${pkgVersion('autocannon')}, Node ${process.version}, ${cpuLine()}; ` +
      `${S.UPSTREAM_COUNT} upstreams (SDK v1 Server, sessionful Streamable HTTP, node:http, one child process each) x ${S.UPSTREAM_PROMPTS} prompts, +${S.DELAY_MS} ms before every POST, timeout ${S.UPSTREAM_TIMEOUT_MS} ms; ` +
      `20 local prompts; PAGE_SIZE ${S.PAGE_SIZE}; Durable Objects SQLite-backed on disk (Miniflare default). Load average at start ${fmtLoad(r.loadavgAtStart)}.`,
    '',
    ...coldLines(r),
    ...warmLines(r),
  ].join('\n');
}

/** bench/out/aggregate.json. */
export function reportJson(r) {
  const { warm } = r;
  return {
    startedAt: r.startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    settings: {
      seconds: S.SECONDS,
      rounds: S.ROUNDS,
      connections: S.CONNECTIONS,
      warmupSeconds: S.WARMUP_SECONDS,
      coldRuns: S.COLD_RUNS,
      coldDiscard: S.COLD_DISCARD,
      upstreamDelayMs: S.DELAY_MS,
      upstreams: S.UPSTREAM_COUNT,
      upstreamPrompts: S.UPSTREAM_PROMPTS,
      upstreamTimeoutMs: S.UPSTREAM_TIMEOUT_MS,
      pageSize: S.PAGE_SIZE,
    },
    environment: environment(
      r.loadavgAtStart,
      ['miniflare', 'wrangler', 'autocannon', 'undici', '@modelcontextprotocol/sdk'],
      { platform: false },
    ),
    targets: { coldMaxOverSlowestUpstreamMs: S.COLD_TARGET_MS, warmMinRatio: S.WARM_TARGET_RATIO },
    cold: { summary: r.coldSummary, runs: r.cold, discarded: r.discarded },
    warm: {
      met: warm.met,
      summary: warm.rows,
      measurements: warm.measurements,
      upstreamRequestsDuringWarm: warm.upstreamMethods,
      workerdWarnings: warm.workerdWarnings,
    },
  };
}
