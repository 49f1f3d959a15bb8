/**
 * The Worker's structured log lines (from workerd, via Miniflare's handleStructuredLogs), with
 * the time Node saw them: the ChangeFeed's `catalog change fanned out` line is how fanout knows
 * a change has been delivered by the feed; warnings and errors are counted and shown.
 */
import { performance } from 'node:perf_hooks';
import { sleep } from '../lib/async.mjs';

export function makeLogSink() {
  const fanouts = [];
  const errors = [];
  const waiters = [];
  const handle = ({ level, message, timestamp }) => {
    const seenAt = performance.now();
    if (message.startsWith('{')) {
      let parsed;
      try {
        parsed = JSON.parse(message);
      } catch {}
      if (parsed?.msg === 'catalog change fanned out') {
        fanouts.push({ ...parsed, seenAt, timestamp });
        for (const w of waiters.splice(0)) w();
        return;
      }
      // Other structured app logs are noise here, unless they report a problem.
      if (parsed?.msg && level !== 'error' && level !== 'warn') return;
    }
    if (level === 'error' || level === 'warn') {
      errors.push({ level, message });
      if (errors.length <= 20) console.error(`fanout: [workerd ${level}] ${message}`);
    }
  };
  /** Resolves with the fan-out log of `generation` (bounded). */
  const fanoutOf = async (generation, ms) => {
    const deadline = performance.now() + ms;
    for (;;) {
      const hit = fanouts.find((f) => f.generation === generation);
      if (hit) return hit;
      const left = deadline - performance.now();
      if (left <= 0) return null;
      await Promise.race([new Promise((r) => waiters.push(r)), sleep(Math.min(left, 250))]);
    }
  };
  return { handle, fanouts, errors, fanoutOf };
}
