/**
 * When a failed usage flush is resent within its own background task: doubling waits, at most
 * three, and none that would start after the task's 25 s budget (the runtime may cut a waitUntil
 * at 30 s), whatever USAGE_FLUSH_MS is. And what an hour of a store that never answers costs an
 * isolate counting a request a second: the store calls stay near one per USAGE_FLUSH_MS, and the
 * batches kept stay within their cap.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { arm, resendDelay, tally } from '../../src/usage/flush.js';

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

describe('a store that never answers, for an hour', () => {
  afterEach(() => vi.useRealTimers());

  it('is called about once per flush interval, and never sent more than the 32 kept batches', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const calls: number[] = [];
    const hung = { add: (sends: unknown[]) => (calls.push(sends.length), new Promise(() => undefined)) };
    const env = { USAGE_STORE: { getByName: () => hung } } as unknown as Env;
    const tasks: Promise<unknown>[] = [];
    for (let second = 0; second < 3_600; second++) {
      tally.add(Date.now(), 'prompts/get', 'greet', 'c', '1', 'modern', 'ok');
      arm(env, 10_000, (p) => tasks.push(p.catch(() => undefined)));
      await vi.advanceTimersByTimeAsync(1_000);
    }
    vi.restoreAllMocks();
    // One flush per 10 s and its three resends: at most 4 calls per 10 s, 24 a minute.
    expect(calls.length / 60).toBeLessThanOrEqual(24);
    expect(calls.length).toBeGreaterThanOrEqual(360);
    expect(Math.max(...calls)).toBeLessThanOrEqual(32);
  });
});
