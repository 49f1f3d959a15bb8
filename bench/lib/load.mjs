/**
 * Load generation: one autocannon run (or wrk's, BENCH_LOAD=wrk: wrk.mjs) (programmatic API, pipelining 1, loopback) with every
 * response's latency recorded here at sub-millisecond precision (autocannon's own histogram
 * rounds to whole milliseconds), and the rule that a measurement with any error response,
 * body mismatch, connection error or timeout is not a measurement.
 */
import autocannon from 'autocannon';
import { cpuMs } from './proc.mjs';
import { median, percentile } from './stats.mjs';
import { loadWrk } from './wrk.mjs';

/** The load generator: `autocannon` (the default, from npm) or `wrk` (C, from Debian's `wrk`). */
export const LOADER = process.env.BENCH_LOAD || 'autocannon';
if (!['autocannon', 'wrk'].includes(LOADER))
  throw new Error(`BENCH_LOAD must be autocannon or wrk, got ${JSON.stringify(LOADER)}`);

/** `plan`: { method, url, headers, body, expectBody }; `h.currentLoad` is the running instance. */
export function load(h, { method = 'POST', url, headers, body, expectBody }, connections, seconds) {
  if (LOADER === 'wrk') return loadWrk(h, { method, url, headers, body, expectBody }, connections, seconds);
  return new Promise((resolveLoad, reject) => {
    if (h.shuttingDown) return reject(new Error('shutting down'));
    const latencies = [];
    const options = {
      url,
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      connections,
      duration: seconds,
      pipelining: 1,
      timeout: 10,
      expectBody,
    };
    const instance = autocannon(options, (err, result) => {
      h.currentLoad = null;
      if (err) return reject(err);
      latencies.sort((a, b) => a - b);
      resolveLoad({
        rps: result.requests.total / result.duration,
        total: result.requests.total,
        durationS: result.duration,
        p50: percentile(latencies, 0.5),
        p99: percentile(latencies, 0.99),
        mean: latencies.reduce((a, b) => a + b, 0) / (latencies.length || 1),
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        mismatches: result.mismatches,
        statusCodes: result.statusCodeStats,
      });
    });
    h.currentLoad = instance;
    instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  });
}

/** Throws unless every response of the measurement was the verified 2xx one. */
export function assertClean(m, what) {
  const bad = [];
  if (m.non2xx) bad.push(`${m.non2xx} non-2xx (${JSON.stringify(m.statusCodes)})`);
  if (m.mismatches) bad.push(`${m.mismatches} responses with a body other than the verified one`);
  if (m.errors) bad.push(`${m.errors} connection errors`);
  if (m.timeouts) bad.push(`${m.timeouts} timeouts`);
  if (m.total === 0) bad.push('no responses at all');
  if (bad.length) throw new Error(`${what}: ${bad.join(', ')}`);
}

/** One clean measurement of `plan` with the target process's CPU per request (`cpuUs`). */
export async function measureCpu(h, plan, connections, seconds, what) {
  const cpu0 = cpuMs(plan.pid);
  const r = await load(h, plan, connections, seconds);
  assertClean(r, what);
  return { ...r, cpuUs: ((cpuMs(plan.pid) - cpu0) * 1000) / r.total };
}

/** Several measurements of one target as one: requests over time, CPU over requests. */
export function pooled(runs) {
  const total = runs.reduce((n, r) => n + r.total, 0);
  const seconds = runs.reduce((n, r) => n + r.durationS, 0);
  const cpuUs = runs.reduce((n, r) => n + r.cpuUs * r.total, 0) / total;
  return { total, rps: total / seconds, p50: median(runs.map((r) => r.p50)), cpuUs };
}
