/**
 * `npm run bench`: reproducible load benchmark of the promptgate Worker.
 *
 * Builds the gateway bundle with `wrangler deploy --dry-run`, runs it on
 * Miniflare (the package API, not `wrangler dev`) next to a bare Hono
 * CEILING Worker and the official SDK McpServer PEER (Node, stateless), and
 * loads all of them on loopback with autocannon in interleaved rounds.
 * Prints a markdown table of medians and writes bench/out/latest.json.
 *
 * Knobs (env): BENCH_SECONDS, BENCH_ROUNDS, BENCH_CONNECTIONS, BENCH_SCENARIOS,
 * BENCH_WARMUP_SECONDS, BENCH_COLD_STARTS, BENCH_DO_STORAGE, BENCH_WORKER_LOGS, BENCH_TIMEOUT_SECONDS
 * (see README.md). The workload is in run/settings.mjs, the checks in run/checks.mjs.
 *
 * Everything it starts (Miniflare instances, the peer process, the temp dir)
 * is disposed on exit, on error, on SIGINT/SIGTERM and on the global timeout.
 */
import os from 'node:os';
import { buildCeiling, buildGateway } from './lib/build.mjs';
import { kib } from './lib/format.mjs';
import { createHarness } from './lib/harness.mjs';
import { writeOut } from './lib/output.mjs';
import { routeWorkerLogs } from './lib/worker-logs.mjs';
import { readWranglerConfig } from './lib/wrangler-config.mjs';
import { checksFor } from './run/checks.mjs';
import { coldStarts } from './run/cold-start.mjs';
import { pairedRatios, summarize } from './run/ratios.mjs';
import { buildAndColdLines, reportJson, reportText } from './run/report.mjs';
import { measureRounds, verifyAll, warmUp } from './run/rounds.mjs';
import {
  COLD_STARTS,
  CONNECTIONS,
  ESTIMATE_S,
  MEASUREMENTS_PER_ROUND,
  ROUNDS,
  SCENARIOS,
  SECONDS,
  TIMEOUT_S,
  WORKER_LOGS,
} from './run/settings.mjs';
import { startTargets } from './run/targets.mjs';

const h = createHarness({ name: 'bench', timeoutS: TIMEOUT_S, timeoutVar: 'BENCH_TIMEOUT_SECONDS' });
const { log } = h;

const NEEDS = { kv: ['PROMPTS'], dos: { SESSIONS: 'SessionObject' } };

async function main() {
  const startedAt = new Date();
  const loadavgAtStart = os.loadavg();
  log(
    `${ROUNDS} round(s) x ${MEASUREMENTS_PER_ROUND} measurements of ${SECONDS} s at ${CONNECTIONS.join('/')} connections; ` +
      `scenarios: ${SCENARIOS.map((s) => s.id).join(', ')}; worker logs: ${WORKER_LOGS}; estimated ${Math.round(ESTIMATE_S)} s, global timeout ${TIMEOUT_S} s`,
  );
  const tmp = h.makeTempDir('promptgate-bench-');
  routeWorkerLogs(WORKER_LOGS, tmp);

  log('building the gateway (wrangler deploy --dry-run) and the ceiling (esbuild)…');
  const [wcfg, gatewayBuild, ceilingBuild] = await Promise.all([
    readWranglerConfig(h, NEEDS),
    buildGateway(h, tmp),
    buildCeiling(tmp),
  ]);
  log(
    `gateway bundle ${kib(gatewayBuild.rawBytes)} raw, ${kib(gatewayBuild.gzipBytes)} gzip (built in ${Math.round(gatewayBuild.buildMs)} ms)`,
  );

  // Cold starts, each on a fresh instance, before anything else runs.
  const { cold, coldMedian } = await coldStarts(h, gatewayBuild, wcfg, COLD_STARTS, ceilingBuild);
  if (ROUNDS === 0) {
    console.log(buildAndColdLines({ gatewayBuild, cold, coldMedian }).join('\n'));
    return;
  }

  log('starting targets…');
  const targets = await startTargets(h, gatewayBuild, ceilingBuild, wcfg);
  log(
    `processes for CPU per request: ${Object.values(targets)
      .map((t) => `${t.id} ${t.pid ?? 'unknown'}`)
      .join(', ')}`,
  );

  log('verifying every scenario once on every target…');
  const plans = await verifyAll(targets, checksFor(wcfg));
  log(`verified ${plans.size} scenario/target pairs`);
  await warmUp(h, plans);
  const measurements = await measureRounds(h, plans, targets);

  const rows = summarize(measurements, targets);
  const extra = pairedRatios(measurements, targets);
  const report = {
    startedAt,
    loadavgAtStart,
    rows,
    extra,
    targets,
    gatewayBuild,
    ceilingBuild,
    cold,
    coldMedian,
    measurements,
  };
  console.log(reportText(report));
  log(`wrote ${writeOut('latest.json', reportJson(report))}`);
}

h.runMain(main);
