/**
 * `npm run bench:fanout`: live-update fan-out benchmark of the promptgate Worker.
 *
 * Builds the gateway bundle once (`wrangler deploy --dry-run`), runs it on
 * Miniflare (package API, its HTTP server on loopback) and, for each stream
 * count N and each NOTIFY_COALESCE_MS variant, on a fresh instance:
 *   1. publishes a small catalog (PUT /admin/catalog) and waits for its fan-out,
 *   2. opens N legacy sessions (initialize + notifications/initialized),
 *   3. opens N standalone SSE streams (GET /mcp) and reads each to its priming event,
 *   4. waits for quiescence, then makes ONE catalog change and records, per stream,
 *      when its first notifications/prompts/list_changed arrives (ms after the PUT
 *      was sent), then watches 2 s more for duplicates (fanout/run-once.mjs).
 * Prints markdown tables of medians across runs and writes bench/out/fanout.json.
 * Exits non-zero if any stream misses the event, gets it twice, or breaks.
 *
 * Knobs (env, see bench/FANOUT.md and fanout/settings.mjs).
 *
 * Everything it starts (Miniflare, workerd, streams, the build, the temp dir)
 * is disposed on exit, on error, on SIGINT/SIGTERM and on the global timeout.
 */
import os from 'node:os';
import { buildGateway } from './lib/build.mjs';
import { round2 } from './lib/stats.mjs';
import { createHarness } from './lib/harness.mjs';
import { writeOut } from './lib/output.mjs';
import { readWranglerConfig } from './lib/wrangler-config.mjs';
import { reportJson, reportText, summarize } from './fanout/report.mjs';
import { runOnce } from './fanout/run-once.mjs';
import { COALESCE_OVERRIDE, RUNS, SHARDS_OVERRIDE, SIZES, TIMEOUT_S, TMP_BASE } from './fanout/settings.mjs';

const h = createHarness({
  name: 'fanout',
  timeoutS: TIMEOUT_S,
  timeoutVar: 'FANOUT_TIMEOUT_SECONDS',
  cleanupStepMs: 20_000,
});
const { log } = h;

const NEEDS = { kv: ['PROMPTS'], dos: { SESSIONS: 'SessionObject', REGISTRY: 'RegistryShard', FEED: 'ChangeFeed' } };

async function main() {
  const startedAt = new Date();
  const loadavgAtStart = os.loadavg();
  const tmp = h.makeTempDir('promptgate-fanout-');

  log('building the gateway (wrangler deploy --dry-run) and reading wrangler.toml…');
  const [wcfg, build] = await Promise.all([readWranglerConfig(h, NEEDS), buildGateway(h, tmp)]);
  log(`gateway bundle ${(build.rawBytes / 1024).toFixed(1)} KiB (built in ${Math.round(build.buildMs)} ms)`);
  const configured = Number(wcfg.vars.NOTIFY_COALESCE_MS ?? 250);
  const coalesces = COALESCE_OVERRIDE ?? [...new Set([configured, 0])];
  log(
    `sizes ${SIZES.join(', ')}; NOTIFY_COALESCE_MS ${coalesces.join(', ')}; ${RUNS} run(s) each on a fresh Miniflare; ` +
      `REGISTRY_SHARDS ${SHARDS_OVERRIDE ?? wcfg.vars.REGISTRY_SHARDS}; DO storage: SQLite files under ${TMP_BASE}; global timeout ${TIMEOUT_S} s`,
  );

  const results = [];
  for (const n of SIZES) {
    for (let run = 1; run <= RUNS; run++) {
      // Variants interleaved per run, so drift hits both alike.
      for (const c of coalesces) results.push(await runOnce(h, build, wcfg, n, c, run));
    }
  }

  const rows = summarize(results, SIZES, coalesces);
  const report = { startedAt, loadavgAtStart, rows, wcfg, configured, coalesces, results, build };
  console.log(reportText(report));
  log(`wrote ${writeOut('fanout.json', reportJson(report), (_k, v) => (typeof v === 'number' ? round2(v) : v))}`);

  const bad = rows.filter((r) => r.missing || r.duplicates || r.badIds || r.streamErrors);
  if (bad.length) {
    throw new Error(
      bad
        .map(
          (r) =>
            `N=${r.n} coalesce=${r.coalesceMs}: ${r.missing} missing, ${r.duplicates} duplicated, ${r.badIds} bad event ids, ${r.streamErrors} broken streams`,
        )
        .join('; '),
    );
  }
}

h.runMain(main);
