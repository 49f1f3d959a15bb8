/**
 * When a failed usage flush is resent within its own background task: doubling waits, at most
 * three, and none that would start after the task's 25 s budget (the runtime may cut a waitUntil
 * at 30 s), whatever USAGE_FLUSH_MS is.
 */
import { describe, expect, it } from 'vitest';
import { resendDelay } from '../../src/usage/flush.js';

/** The waits a flush armed at 0, failing every time, would sleep, each store call taking `callMs`. */
function schedule(flushMs: number, callMs = 0): number[] {
  const retryMs = Math.min(flushMs, 2_000);
  const waits: number[] = [];
  let now = flushMs + callMs;
  for (let attempt = 0; ; attempt++) {
    const wait = resendDelay(retryMs, attempt, now, 25_000);
    if (wait === undefined) return waits;
    waits.push(wait);
    now += wait + callMs;
  }
}

describe('resendDelay', () => {
  it('doubles from min(USAGE_FLUSH_MS, 2 s), three times, when the budget allows', () => {
    expect(schedule(20)).toEqual([20, 40, 80]);
    expect(schedule(10_000)).toEqual([2_000, 4_000, 8_000]);
  });

  it('schedules no resend that would start past the budget', () => {
    // 16 s + 2 + 4 = 22 s; the third (8 s more) would start at 30 s.
    expect(schedule(16_000)).toEqual([2_000, 4_000]);
    expect(schedule(20_000)).toEqual([2_000]);
    // USAGE_FLUSH_MS at its maximum: the first attempt is the only one; the batch waits for the next flush.
    expect(schedule(25_000)).toEqual([]);
    // Slow store calls use the budget up too.
    expect(schedule(10_000, 3_000)).toEqual([2_000, 4_000]);
  });

  it('never resends when asked not to', () => {
    expect(resendDelay(0, 0, 0, Infinity)).toBeUndefined();
    expect(resendDelay(2_000, 3, 0, Infinity)).toBeUndefined();
  });
});
