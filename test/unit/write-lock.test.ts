/**
 * WriteLock (src/catalog/write-lock.ts), the CatalogWriter's one-at-a-time lock: what it runs never
 * overlaps, starts in the order it was queued, and a write that throws (at once or later) rejects
 * its own caller only, marked retryable, leaving the lock free for the next.
 */
import { describe, expect, it } from 'vitest';
import { WriteLock } from '../../src/catalog/write-lock.js';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('WriteLock', () => {
  it('runs writes one at a time, in arrival order, whatever each takes', async () => {
    const lock = new WriteLock();
    const events: string[] = [];
    let running = 0;
    const write = (name: string, ms: number) =>
      lock.run(async () => {
        running += 1;
        expect(running, `${name} overlaps another write`).toBe(1);
        events.push(`start ${name}`);
        await tick(ms);
        events.push(`end ${name}`);
        running -= 1;
        return name;
      });
    const results = await Promise.all([write('a', 30), write('b', 1), write('c', 10)]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(events).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('a write that throws, or rejects later, fails its own caller only; the writes after it still run', async () => {
    const lock = new WriteLock();
    const ran: string[] = [];
    const thrown = lock.run(() => {
      ran.push('throws');
      throw new Error('at once');
    });
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what a write that rejects oddly gives
    const notAnError = lock.run(() => Promise.reject('a string'));
    const rejected = lock.run(async () => {
      ran.push('rejects');
      await tick(5);
      throw new Error('later');
    });
    const after = lock.run(async () => {
      ran.push('after');
      return 42;
    });
    // Marked safe to repeat, as the object reset under blockConcurrencyWhile was (rpc/errors.ts isRetryable).
    await expect(thrown).rejects.toMatchObject({ message: 'at once', retryable: true });
    await expect(notAnError).rejects.toMatchObject({ message: 'a string', cause: 'a string', retryable: true });
    await expect(rejected).rejects.toMatchObject({ message: 'later', retryable: true });
    expect(await after).toBe(42);
    expect(ran).toEqual(['throws', 'rejects', 'after']);
    // Still free once idle, after failures.
    expect(await lock.run(async () => 'again')).toBe('again');
  });

  it("a bug's error (TypeError and its kin) is not marked safe to repeat: it would fail the same way", async () => {
    const lock = new WriteLock();
    for (const bug of [new TypeError('x is undefined'), new RangeError('bad length')]) {
      const failed = await lock
        .run(() => Promise.reject(bug))
        .then(
          () => undefined,
          (e: unknown) => e as { retryable?: unknown },
        );
      expect(failed).toBe(bug);
      expect(failed?.retryable).toBeUndefined();
    }
    expect(await lock.run(async () => 'free')).toBe('free');
  });

  it('a write queued while another runs does not start until that one has settled', async () => {
    const lock = new WriteLock();
    let release!: () => void;
    const first = lock.run(() => new Promise<void>((r) => (release = r)));
    let started = false;
    const second = lock.run(async () => {
      started = true;
    });
    await tick(20);
    expect(started).toBe(false);
    release();
    await first;
    await second;
    expect(started).toBe(true);
  });
});
