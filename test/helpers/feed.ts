/**
 * Deterministic control of the change feed's coalescing window, and bounded
 * waiting for events, for tests that run inside workerd.
 *
 * The feed folds changes into one notification per NOTIFY_COALESCE_MS window,
 * closed by its alarm. A test that needs to know which changes share a window
 * holds the window open (the alarm moved an hour out: publish() never moves an
 * armed alarm), publishes, and closes it with runDurableObjectAlarm; nothing
 * then depends on how fast the machine is. flushFeed() is also the barrier
 * "every fan-out so far has been handed to every stream's socket".
 */
import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { changeFeed } from '../../src/session/fanout.js';

const realSetTimeout = globalThis.setTimeout.bind(globalThis);
const pause = (ms: number) => new Promise((r) => realSetTimeout(r, ms));

export const feedStub = () => changeFeed(env);

/** Polls `check` until it holds; fails after `ms` (a bound for a broken run, not a timing assumption). */
export async function waitFor(check: () => Promise<boolean> | boolean, what = 'condition', ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not met within ${ms} ms`);
    await pause(20);
  }
}

async function feedState(): Promise<{ pending: number | undefined; published: number; alarm: number | null }> {
  return runInDurableObject(feedStub(), async (_o, ctx) => ({
    // Waiting for its window, or going out (a fan-out being retried).
    pending:
      (await ctx.storage.get<number>('pending')) ??
      (await ctx.storage.get<{ generation: number }>('inflight'))?.generation,
    published: (await ctx.storage.get<number>('published')) ?? 0,
    alarm: await ctx.storage.getAlarm(),
  }));
}

/**
 * Runs the feed's alarm now, if one is armed. A fan-out that failed at a
 * shard arms its own retry; the runtime retries an alarm that throws (or
 * whose object is restarted under it), and runDurableObjectAlarm has already
 * removed it, so such a run is armed again here, as the runtime would. Nothing else re-arms: a change left pending with no alarm is
 * a lost announcement, and flushFeed() then fails.
 */
export async function runFeedAlarm(): Promise<void> {
  try {
    await runDurableObjectAlarm(feedStub());
  } catch {
    await runInDurableObject(feedStub(), async (_o, ctx) => {
      const waiting = (await ctx.storage.get('pending')) ?? (await ctx.storage.get('inflight'));
      if (waiting !== undefined && (await ctx.storage.getAlarm()) === null)
        await ctx.storage.setAlarm(Date.now() + 3_600_000);
    });
  }
}

/**
 * Closes the coalescing window now and runs every pending fan-out to the end
 * (a failed fan-out is retried, as the runtime would). Returns the generation
 * last announced. No alarm is left armed, so the next change opens a real window.
 */
export async function flushFeed(): Promise<number> {
  let last = await feedState();
  await waitFor(async () => {
    // An alarm firing on its own at the same time is harmless: fan-outs are idempotent by generation.
    await runFeedAlarm();
    last = await feedState();
    return last.pending === undefined && last.alarm === null;
  }, 'change feed drained');
  return last.published;
}

/** Drains the feed, then holds its coalescing window open until flushFeed(). */
export async function holdFeed(): Promise<void> {
  await flushFeed();
  await runInDurableObject(feedStub(), (_o, ctx) => ctx.storage.setAlarm(Date.now() + 3_600_000));
}
