/**
 * What `npm run bench` prints (a markdown table of medians, the paired ratios, bundle size,
 * cold start) and what it writes to bench/out/latest.json (settings, environment, every
 * individual measurement).
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { cpuLine, fmtInt, fmtLoad, fmtMs as fmtMsDigits, fmtX, kib } from '../lib/format.mjs';
import { environment } from '../lib/output.mjs';
import { LOADER } from '../lib/load.mjs';
import { pkgVersion } from '../lib/paths.mjs';
import {
  COLD_STARTS,
  CONNECTIONS,
  DO_STORAGE,
  ROUNDS,
  SCENARIOS,
  SECONDS,
  WARMUP_SECONDS,
  WORKER_LOGS,
} from './settings.mjs';

const fmtMs = (n) => fmtMsDigits(n, 2);

/** The load generator and its version: autocannon's from npm, wrk's as it reports it. */
function loaderLine() {
  if (LOADER === 'autocannon') return `autocannon ${pkgVersion('autocannon')}`;
  const v = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  return (v.stdout || v.stderr || 'wrk').split('\n')[0].split(' [')[0].trim();
}

function table(rows) {
  const head = ['Scenario', 'Conns', 'Target', 'req/s (median)', 'p50 ms', 'p99 ms', 'x ceiling', 'CPU µs/req'];
  const lines = [`| ${head.join(' | ')} |`, '|---|---:|---|---:|---:|---:|---:|---:|'];
  for (const r of rows) {
    lines.push(
      `| ${r.scenarioLabel} | ${r.connections} | ${r.targetLabel} | ${fmtInt(r.rps)} | ${fmtMs(r.p50)} | ${fmtMs(r.p99)} | ${fmtX(r.ratioToCeiling)} | ${fmtInt(r.cpuUsPerReq)} |`,
    );
  }
  return lines.join('\n');
}

function pairedLines({ rows, extra, targets }) {
  const out = ['Session check (prompts/list on two gateway instances, paired per round):'];
  const recheck = targets.gateway.recheckMs;
  for (const e of extra.filter((x) => x.kind === 'recheck0/recheckDefault')) {
    const row = (t) =>
      rows.find((r) => r.scenario === 'session-check' && r.connections === e.connections && r.target === t);
    const [rMemo, r0] = [row('gateway'), row('gateway-recheck0')];
    out.push(
      `- ${e.connections} connections: RECHECK ${recheck} ${fmtInt(rMemo.rps)} req/s (${fmtX(rMemo.ratioToCeiling)} ceiling), ` +
        `RECHECK 0 ${fmtInt(r0.rps)} req/s (${fmtX(r0.ratioToCeiling)} ceiling); RECHECK 0 / RECHECK ${recheck} = ${fmtX(e.ratio)}`,
    );
  }
  if (extra.some((x) => x.kind === 'modern/legacy')) {
    out.push(
      '',
      'Modern (2026-07-28, stateless) prompts/list vs legacy in-session prompts/list (gateway, paired per round):',
    );
    for (const e of extra.filter((x) => x.kind === 'modern/legacy'))
      out.push(
        `- ${e.connections} connections: req/s ${fmtX(e.ratio)}; workerd CPU per request ${fmtX(e.cpuRatio)} (below 1 = modern costs less)`,
      );
    for (const e of extra.filter((x) => x.kind === 'modern/legacy-checked'))
      out.push(
        `- ${e.connections} connections, against a legacy request whose session is checked with its Durable Object (RECHECK 0): req/s ${fmtX(e.ratio)}`,
      );
  }
  out.push('', 'Gateway vs SDK peer (req/s, paired per round):');
  for (const e of extra.filter((x) => x.kind === 'gateway/peer'))
    out.push(`- ${e.scenario}, ${e.connections} connections: ${fmtX(e.ratio)}`);
  return out;
}

export function buildAndColdLines({ gatewayBuild: b, cold, coldMedian: m }) {
  const out = [
    `Gateway bundle (wrangler deploy --dry-run, index.js): ${b.rawBytes} bytes (${kib(b.rawBytes)}) raw, ` +
      `${b.gzipBytes} bytes (${kib(b.gzipBytes)}) gzip (zlib default level)` +
      (b.wranglerReports ? `; wrangler reports "${b.wranglerReports}"` : ''),
  ];
  if (m) {
    out.push(
      `Cold start (median of ${cold.length} fresh Miniflare instances): new Miniflare() → ready ${fmtMs(m.readyMs)} ms; ` +
        `→ first successful initialize response ${fmtMs(m.coldStartMs)} ms (the initialize request itself ${fmtMs(m.initializeMs)} ms); ` +
        `the bare ceiling Worker's new Miniflare() → ready ${fmtMs(m.ceilingReadyMs)} ms, → first response ${fmtMs(m.ceilingColdMs)} ms ` +
        `(the request itself ${fmtMs(m.ceilingFirstMs)} ms): ${fmtX(m.coldRatio)} (paired per run, after one unmeasured pair).`,
      `First requests after start: first in-session ping ${fmtMs(m.firstPingMs)} ms; ` +
        `first prompts/list (catalog cold read from KV) ${fmtMs(m.firstListMs)} ms; second prompts/list (warm) ${fmtMs(m.secondListMs)} ms.`,
    );
  }
  return out;
}

/** The printed report. `r`: { startedAt, loadavgAtStart, rows, extra, targets, gatewayBuild, cold, coldMedian }. */
export function reportText(r) {
  return [
    `## promptgate benchmark (${r.startedAt.toISOString()})`,
    '',
    `Miniflare ${pkgVersion('miniflare')} on loopback, ${loaderLine()}, Node ${process.version}, ` +
      `${cpuLine()}; ${ROUNDS} interleaved round(s) of ${SECONDS} s per measurement; ` +
      `medians across rounds; "x ceiling" = median of per-round ratios to the ceiling in the same scenario and connection count. ` +
      `Durable Object storage: ${DO_STORAGE}. Worker stdout: ${WORKER_LOGS}. Load average at start ${fmtLoad(r.loadavgAtStart)}, at end ${fmtLoad(os.loadavg())}.`,
    '',
    table(r.rows),
    '',
    ...pairedLines(r),
    '',
    ...buildAndColdLines(r),
  ].join('\n');
}

/** bench/out/latest.json. */
export function reportJson(r) {
  const { gatewayBuild: b } = r;
  return {
    startedAt: r.startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    settings: {
      seconds: SECONDS,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      warmupSeconds: WARMUP_SECONDS,
      coldStarts: COLD_STARTS,
      doStorage: DO_STORAGE,
      workerLogs: WORKER_LOGS,
      load: LOADER,
      scenarios: SCENARIOS.map((s) => s.id),
    },
    environment: environment(r.loadavgAtStart, [
      'miniflare',
      'wrangler',
      'autocannon',
      'hono',
      '@modelcontextprotocol/sdk',
      'zod',
    ]),
    bundle: {
      rawBytes: b.rawBytes,
      gzipBytes: b.gzipBytes,
      buildMs: b.buildMs,
      wranglerReports: b.wranglerReports,
      ceilingRawBytes: r.ceilingBuild.rawBytes,
    },
    coldStart: { median: r.coldMedian, runs: r.cold },
    targets: Object.fromEntries(Object.values(r.targets).map((t) => [t.id, { kind: t.kind, label: t.label }])),
    scenarios: SCENARIOS.map((s) => ({ id: s.id, label: s.label, body: s.body, targets: s.targets })),
    summary: r.rows,
    ratios: r.extra,
    measurements: r.measurements,
  };
}
