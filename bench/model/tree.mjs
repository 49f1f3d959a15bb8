/**
 * The fan-out tree as arithmetic: one catalog change through ChangeFeed -> S RegistryShards ->
 * N stream sockets -> the Workers holding the SSE responses, with per-hop costs measured by
 * `npm run bench:fanout`. Pure functions, so the model's numbers are testable and re-runnable.
 */

/** Cloudflare list prices (Workers Paid), developers.cloudflare.com/durable-objects/platform/pricing and workers/platform/pricing. */
export const PRICES = {
  doRequestPerMillion: 0.15,
  rowWrittenPerMillion: 1.0,
  gbSecondPerMillion: 12.5,
  workerCpuMsPerMillion: 0.02,
  /** A Durable Object is billed as 128 MB while it runs. */
  doGb: 0.128,
};

/** Platform limits the tree must stay under (developers.cloudflare.com/workers/platform/limits, durable-objects/platform/limits). */
export const LIMITS = {
  subrequestsPerInvocation: 10_000,
  cpuMsPerInvocation: 30_000,
  /** Soft limit of requests per second one object serves (durable-objects FAQ). */
  objectRequestsPerSecond: 1_000,
  /** REGISTRY_SHARDS' configured maximum (src/lib/config.ts). */
  shardsConfigMax: 4_096,
  /** Memory of one isolate, so of one awake object (workers/platform/limits). */
  objectMemoryBytes: 128 * 1024 * 1024,
};

/**
 * Storage rows one change writes (src/session/change-feed.ts, registry-shard.ts): the feed's own
 * (pending and its lists; their move to inflight; the record; published; inflight cleared) and
 * each shard's once its log is full (log row, mark, the trimmed row and the trim mark).
 */
export const ROWS = { feed: 8, perShard: 4 };
/** The feed's rows in that design (pending, lists, record, published, cleanup). */
const BEFORE_FEED_ROWS = 6;

/**
 * Per-hop figures from bench:fanout runs without coalescing, all on one Miniflare thread:
 * `perStreamMs` is workerd CPU per stream for the whole delivery (shard send, Worker framing,
 * HTTP write), `fixedMs` what the last delivery takes besides N of those.
 */
export function calibrate(runs) {
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length ? (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2 : NaN;
  };
  const perStreamMs = median(runs.map((r) => r.cpu.workerdMs / r.n));
  const fixedMs = median(runs.map((r) => r.lastMs - r.n * perStreamMs));
  return { perStreamMs, fixedMs, runs: runs.length };
}

/** The last delivery on one Miniflare thread, where every hop shares one core. */
export const miniflareLastMs = (n, cal) => cal.fixedMs + n * cal.perStreamMs;

/**
 * One change on Cloudflare, the tree spread over machines: the feed issues S calls, every shard
 * works its N/S sockets in parallel, each Worker frames its own stream.
 * `h`: { callMs: feed CPU per shard call, rpcMs: feed->shard latency, sendMs: shard CPU per socket,
 * shardFixedMs: shard CPU per change, wsMs: shard->Worker latency, frameMs: Worker CPU per stream,
 * coalesceMs, socketBytes: an awake shard's memory per socket }.
 */
export function production(n, s, h) {
  const perShard = Math.ceil(n / s);
  const feedMs = s * h.callMs;
  const shardMs = h.shardFixedMs + perShard * h.sendMs;
  const lastMs = h.coalesceMs + feedMs + h.rpcMs + shardMs + h.wsMs + h.frameMs;
  const cost = {
    requests: ((s + 2) * PRICES.doRequestPerMillion) / 1e6,
    rows: ((ROWS.feed + s * ROWS.perShard) * PRICES.rowWrittenPerMillion) / 1e6,
    duration: (((feedMs + s * shardMs) / 1000) * PRICES.doGb * PRICES.gbSecondPerMillion) / 1e6,
    workerCpu: (n * h.frameMs * PRICES.workerCpuMsPerMillion) / 1e6,
  };
  // What share of each platform limit one change uses; the largest binds first. A shard serves one
  // call per change and the feed a publish per write, far under an object's ~1,000 requests/s. A
  // fan-out wakes the shard with every socket it holds, so its memory is the sockets'.
  const headroom = {
    'feed subrequests': s / LIMITS.subrequestsPerInvocation,
    'feed CPU': feedMs / LIMITS.cpuMsPerInvocation,
    'shard CPU': shardMs / LIMITS.cpuMsPerInvocation,
    'shard memory': (perShard * h.socketBytes) / LIMITS.objectMemoryBytes,
  };
  const binding = Object.entries(headroom).sort((a, b) => b[1] - a[1])[0];
  return { n, s, perShard, feedMs, shardMs, lastMs, cost, total: sum(cost), headroom, binding };
}

/** The design before: every change called and wrote every session's object (2 rows each). */
export function perSessionDesign(n, s, h) {
  const requests = ((n + s + 2) * PRICES.doRequestPerMillion) / 1e6;
  const rows = ((BEFORE_FEED_ROWS + 2 * n) * PRICES.rowWrittenPerMillion) / 1e6;
  const duration = ((n * h.sessionWakeMs) / 1000) * PRICES.doGb * (PRICES.gbSecondPerMillion / 1e6);
  return { n, s, cost: { requests, rows, duration }, total: requests + rows + duration };
}

/** Feed -> R relays -> S shards: what a relay level would add when S calls no longer fit one invocation. */
export function relaysNeeded(s) {
  return s <= LIMITS.subrequestsPerInvocation ? 0 : Math.ceil(s / LIMITS.subrequestsPerInvocation);
}

const sum = (o) => Object.values(o).reduce((a, b) => a + b, 0);
