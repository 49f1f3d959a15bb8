/**
 * `npm run bench:aggregate`: an aggregated prompts/list over three upstream
 * MCP servers (each adding AGG_UPSTREAM_DELAY_MS, default 50 ms, to every POST),
 * cold and warm, in the same run as the local list.
 *
 * - Upstreams: three SDK v1 `Server`s, sessionful Streamable HTTP, on node:http,
 *   each its own child process (targets/upstream.mjs), 10 prompts each;
 *   every request is logged (arrival, finish) and the log read back over HTTP.
 * - COLD (aggregate/cold.mjs): on AGG_COLD_RUNS fresh AGGREGATED Miniflare instances:
 *   publish the 20 local prompts, open a session, measure each upstream's own cold
 *   sequence directly from Node, then time the gateway's first prompts/list.
 *   Target: median cold list <= slowest upstream + 15 ms.
 * - WARM (aggregate/warm.mjs): LOCAL vs AGGREGATED in-session prompts/list, autocannon
 *   in interleaved rounds. Target: AGGREGATED/LOCAL req/s >= 0.8.
 *
 * Prints markdown tables and writes bench/out/aggregate.json. Knobs: see AGGREGATE.md.
 * Everything it starts (Miniflare instances, upstream servers, build processes,
 * the temp dir) is disposed on exit, error, SIGINT/SIGTERM and the global timeout.
 */
import os from 'node:os';
import { buildGateway } from './lib/build.mjs';
import { createHarness } from './lib/harness.mjs';
import { writeOut } from './lib/output.mjs';
import { round2 } from './lib/stats.mjs';
import { readWranglerConfig } from './lib/wrangler-config.mjs';
import { coldRuns } from './aggregate/cold.mjs';
import { reportJson, reportText } from './aggregate/report.mjs';
import * as S from './aggregate/settings.mjs';
import { directSequence, startUpstream } from './aggregate/upstreams.mjs';
import { warmPhase } from './aggregate/warm.mjs';

const h = createHarness({ name: 'aggregate', timeoutS: S.TIMEOUT_S, timeoutVar: 'AGG_TIMEOUT_SECONDS' });
const { log } = h;

const NEEDS = { dos: { SESSIONS: true, CATALOG: true, UPSTREAM: true } };

async function main() {
  const startedAt = new Date();
  const loadavgAtStart = os.loadavg();
  log(
    `${S.COLD_RUNS} cold runs; warm: ${S.ROUNDS} round(s) x ${S.SECONDS} s at ${S.CONNECTIONS.join('/')} connections; ` +
      `${S.UPSTREAM_COUNT} upstreams x ${S.UPSTREAM_PROMPTS} prompts, +${S.DELAY_MS} ms per POST; estimated ${Math.round(S.ESTIMATE_S)} s, global timeout ${S.TIMEOUT_S} s`,
  );
  const tmp = h.makeTempDir('promptgate-aggregate-');

  log('building the gateway (wrangler deploy --dry-run) and starting the upstreams…');
  const [wcfg, build, upstreams] = await Promise.all([
    readWranglerConfig(h, NEEDS),
    buildGateway(h, tmp),
    Promise.all(Array.from({ length: S.UPSTREAM_COUNT }, (_, i) => startUpstream(h, i))),
  ]);
  log(`built in ${Math.round(build.buildMs)} ms; upstreams ${upstreams.map((u) => u.url).join(', ')}`);
  // Node's first requests pay undici/JIT start-up; not part of any upstream's latency.
  for (const u of upstreams) await directSequence(u);

  const { cold, discarded, coldSummary } = await coldRuns(h, build, wcfg, upstreams);
  const warm = await warmPhase(h, build, wcfg, upstreams);

  const report = { startedAt, loadavgAtStart, cold, discarded, coldSummary, warm };
  console.log(reportText(report));
  log(`wrote ${writeOut('aggregate.json', reportJson(report), (_k, v) => (typeof v === 'number' ? round2(v) : v))}`);
}

h.runMain(main);
