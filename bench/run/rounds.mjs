/**
 * The measuring part of `npm run bench`: every (scenario, target) pair verified, warmed up
 * once (not recorded), then BENCH_ROUNDS interleaved rounds (for each scenario and connection
 * count: every target in turn for BENCH_SECONDS), so drift and noise hit all targets alike.
 * Each measurement also reads the target process's CPU time before and after.
 */
import { fmtInt, fmtMs } from '../lib/format.mjs';
import { assertClean, load } from '../lib/load.mjs';
import { CLK_TCK, cpuTicks } from '../lib/proc.mjs';
import { requestFor, verify } from './checks.mjs';
import { CONNECTIONS, ROUNDS, SCENARIOS, SECONDS, WARMUP_SECONDS } from './settings.mjs';

/** Verified plans by `scenario|target`: the request plus the body expected byte for byte. */
export async function verifyAll(targets, checks) {
  const plans = new Map();
  for (const s of SCENARIOS) {
    for (const t of s.targets) {
      const req = requestFor(s, targets[t]);
      plans.set(`${s.id}|${t}`, { ...req, expectBody: await verify(s, targets[t], checks) });
    }
  }
  return plans;
}

export async function warmUp(h, plans) {
  if (WARMUP_SECONDS <= 0) return;
  h.log(`warming up (${WARMUP_SECONDS} s per scenario/target pair)…`);
  for (const [key, plan] of plans) {
    const m = await load(h, plan, Math.max(...CONNECTIONS), WARMUP_SECONDS);
    assertClean(m, `warm-up ${key}`);
  }
}

export async function measureRounds(h, plans, targets) {
  const measurements = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const s of SCENARIOS) {
      for (const c of CONNECTIONS) {
        for (const t of s.targets) {
          const ticks0 = cpuTicks(targets[t].pid);
          const m = await load(h, plans.get(`${s.id}|${t}`), c, SECONDS);
          const ticks1 = cpuTicks(targets[t].pid);
          const what = `round ${round} ${s.id} ${t} c=${c}`;
          assertClean(m, what);
          m.cpuUsPerReq =
            ticks0 === undefined || ticks1 === undefined ? undefined : ((ticks1 - ticks0) * 1e6) / CLK_TCK / m.total;
          measurements.push({ round, scenario: s.id, target: t, connections: c, ...m });
          h.log(
            `${what}: ${fmtInt(m.rps)} req/s, p50 ${fmtMs(m.p50, 2)} ms, p99 ${fmtMs(m.p99, 2)} ms, CPU ${fmtInt(m.cpuUsPerReq)} µs/req`,
          );
        }
      }
    }
  }
  return measurements;
}
