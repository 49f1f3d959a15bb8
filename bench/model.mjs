/**
 * `npm run bench:model`: the fan-out tree at scale, on paper, fed with what bench:fanout measured.
 *
 * 1. Calibrates the per-stream and fixed cost of a delivery from the smallest N measured (runs
 *    without coalescing; by default bench/model/fanout-measured.json, the bench:fanout result
 *    quoted in bench/RESULTS.md) and predicts every larger N measured, on
 *    the same one-thread Miniflare: the check that the model describes what was measured.
 * 2. Projects one change on Cloudflare at 10k, 100k and 1M streams for several shard counts:
 *    last delivery, cost at list prices against the design that called every session, and the
 *    platform limit with the least headroom.
 * Knobs: MODEL_FANOUT_JSON (comma-separated result files), MODEL_RPC_MS and MODEL_WS_MS (one-way
 * latency feed->shard and shard->Worker; default 50 ms, across regions), MODEL_CALL_MS (feed CPU
 * per shard call; default from the measured runs' shard count), MODEL_COALESCE_MS (default 250),
 * MODEL_SOCKET_KB (an awake shard's memory per socket; default 22.1).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { envNum } from './lib/env.mjs';
import { BENCH_DIR } from './lib/paths.mjs';
import { calibrate, LIMITS, miniflareLastMs, perSessionDesign, production, relaysNeeded } from './model/tree.mjs';

const FILES = (process.env.MODEL_FANOUT_JSON || join(BENCH_DIR, 'model', 'fanout-measured.json')).split(',');
const RPC_MS = envNum('MODEL_RPC_MS', 50, { min: 0 });
const WS_MS = envNum('MODEL_WS_MS', 50, { min: 0 });
const COALESCE_MS = envNum('MODEL_COALESCE_MS', 250, { min: 0 });
const CALL_MS = process.env.MODEL_CALL_MS ? envNum('MODEL_CALL_MS', 0.05, { min: 0 }) : null;
/**
 * The JavaScript heap per attached stream, both ends (the Worker's SSE stream and socket, and the
 * shard's socket): 22.1 KB in V8 heap snapshots before and after attaching 300 streams
 * (bench/RESULTS.md, "The SSE body's stream"). The shard's share is less: an upper bound.
 */
const SOCKET_KB = envNum('MODEL_SOCKET_KB', 22.1, { min: 0 });
if (process.env.BENCH_LOAD_CHECK === '1') process.exit(0);

const runs = FILES.flatMap((f) => JSON.parse(readFileSync(f.trim(), 'utf8')).runs).filter((r) => r.coalesceMs === 0);
const sizes = [...new Set(runs.map((r) => r.n))].sort((a, b) => a - b);
if (!sizes.length) throw new Error(`no runs without coalescing in ${FILES.join(', ')}: run bench:fanout first`);
const cal = calibrate(runs.filter((r) => r.n === sizes[0]));
/**
 * Feed time per shard: bench:fanout at N=100 with FANOUT_SHARDS=16 and 256 (feed fan-out 22 vs
 * 127 ms, medians of 3): 0.44 ms per added shard. On Miniflare that includes the shard's own work
 * on the same thread, so it is an upper bound for the feed's part.
 */
const MEASURED_CALL_MS = 0.44;
const median = (xs) => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1];
const fmt = (x, d = 1) => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const usd = (x) => `$${x < 0.01 ? x.toPrecision(2) : x.toFixed(2)}`;

const out = ['## Fan-out model', ''];
out.push(
  `Calibrated on N=${sizes[0]} (${cal.runs} runs): ${fmt(cal.perStreamMs, 3)} ms of workerd CPU per stream, ` +
    `${fmt(cal.fixedMs)} ms fixed.`,
  '',
  '| N | measured last ms (median) | predicted ms | error |',
  '|---:|---:|---:|---:|',
);
for (const n of sizes) {
  const measured = median(runs.filter((r) => r.n === n).map((r) => r.lastMs));
  const predicted = miniflareLastMs(n, cal);
  out.push(`| ${n} | ${fmt(measured)} | ${fmt(predicted)} | ${fmt((100 * (predicted - measured)) / measured)} % |`);
}

// On Cloudflare every shard is its own machine: per-stream work splits between the shard (one send)
// and the Worker holding the stream (framing); the measured per-stream CPU is charged to both, an upper bound.
const callMs = CALL_MS ?? MEASURED_CALL_MS;
const hops = {
  callMs,
  rpcMs: RPC_MS,
  sendMs: cal.perStreamMs,
  shardFixedMs: 1,
  wsMs: WS_MS,
  frameMs: cal.perStreamMs,
  coalesceMs: COALESCE_MS,
  sessionWakeMs: 5,
  socketBytes: SOCKET_KB * 1000,
};
out.push(
  '',
  `Projected on Cloudflare (coalescing ${COALESCE_MS} ms, ${RPC_MS} ms feed->shard, ${WS_MS} ms shard->Worker, ` +
    `${fmt(callMs, 3)} ms feed CPU per shard call, ${fmt(cal.perStreamMs, 3)} ms per stream at the shard and again at its Worker, ` +
    `${fmt(SOCKET_KB)} KB of an awake shard's memory per socket):`,
  '',
  '| Streams | Shards | per shard | last delivery ms | cost per change | calling every session (before) | least headroom |',
  '|---:|---:|---:|---:|---:|---:|---|',
);
for (const n of [10_000, 100_000, 1_000_000]) {
  for (const s of [16, 256, 4_096, 10_000]) {
    const p = production(n, s, hops);
    const old = perSessionDesign(n, s, hops);
    const [limit, used] = p.binding;
    out.push(
      `| ${n.toLocaleString('en-US')} | ${s.toLocaleString('en-US')} | ${p.perShard.toLocaleString('en-US')} | ` +
        `${fmt(p.lastMs, 0)} | ${usd(p.total)} | ${usd(old.total)} | ${limit} ${fmt(100 * used, 0)} %` +
        `${s > LIMITS.shardsConfigMax ? ' (over the REGISTRY_SHARDS cap)' : ''} |`,
    );
  }
}
out.push(
  '',
  `Limits: ${LIMITS.subrequestsPerInvocation.toLocaleString('en-US')} subrequests and ` +
    `${LIMITS.cpuMsPerInvocation / 1000} s CPU per invocation (the feed's alarm makes one call per shard), ` +
    `${LIMITS.objectMemoryBytes / 1024 / 1024} MB of memory per object, ` +
    `REGISTRY_SHARDS at most ${LIMITS.shardsConfigMax.toLocaleString('en-US')}. ` +
    `A relay level (feed -> relays -> shards) is needed past ${LIMITS.subrequestsPerInvocation.toLocaleString('en-US')} ` +
    `shards: ${relaysNeeded(20_000)} relays for 20,000.`,
);
console.log(out.join('\n'));
