/**
 * The follow loop (src/catalog/upstreams/follow.ts) over a stand-in stream: what it re-lists, and
 * when, as streams end in each way. Real timers: the backoff is the loop's own (about a second).
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { followChanges, MIN_RELIST_MS, pause, type Follow } from '../../src/catalog/upstreams/follow.js';

type Outcome = 'unsupported' | 'ended' | 'closed';

/** A stand-in upstream: each listen is a stream the test ends; the log says what the loop did, in order. */
function standIn() {
  const log: string[] = [];
  const streams: ((o: Outcome) => void)[] = [];
  const ctl = new AbortController();
  const follow: Follow = {
    signal: ctl.signal,
    listen: (_changed, signal, opened) =>
      new Promise<Outcome>((resolve) => {
        log.push(opened ? 'listen, re-list once open' : 'listen');
        streams.push(resolve);
        signal.addEventListener('abort', () => resolve('ended'), { once: true });
        opened?.();
      }),
    relist: async () => void log.push('re-list'),
  };
  return { log, streams, ctl, follow };
}

/** A stand-in upstream whose re-lists take `ms`: how many ran, and whether two ever ran at once. */
function slowUpstream(ms: number) {
  const ctl = new AbortController();
  const u = {
    relists: 0,
    overlapped: false,
    inFlight: 0,
    announce: undefined as (() => void) | undefined,
    streams: [] as ((o: Outcome) => void)[],
    stop: async () => {
      ctl.abort();
      await loop;
    },
  };
  const loop = followChanges({
    signal: ctl.signal,
    listen: (changed, signal) =>
      new Promise<Outcome>((resolve) => {
        u.announce = changed;
        u.streams.push(resolve);
        signal.addEventListener('abort', () => resolve('ended'), { once: true });
      }),
    relist: async () => {
      u.overlapped ||= u.inFlight > 0;
      u.inFlight += 1;
      u.relists += 1;
      await new Promise((r) => setTimeout(r, ms));
      u.inFlight -= 1;
    },
  });
  return u;
}

async function until(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const count = (log: string[], entry: string) => log.filter((e) => e === entry).length;

/** The loop over a stand-in whose first stream ends with `outcome`: its log once it has re-listed `reLists` times. */
async function afterFirstStream(outcome: Outcome, reLists: number): Promise<string[]> {
  const { log, streams, ctl, follow } = standIn();
  const loop = followChanges(follow);
  await until('the first stream', () => streams.length === 1);
  streams[0]!(outcome);
  await until(`re-list ${reLists}`, () => count(log, 're-list') === reLists);
  const seen = [...log];
  ctl.abort();
  await loop;
  return seen;
}

describe('the follow loop', () => {
  it('after a drop re-lists at once, reconnects, and re-lists again once the new stream is open', async () => {
    // The second re-list covers what changed between the first and the new stream: nothing waits for the poll.
    expect(await afterFirstStream('ended', 2)).toEqual(['listen', 're-list', 'listen, re-list once open', 're-list']);
  });

  it('a stream ended by closing its client reconnects without a re-list of its own, then re-lists once open', async () => {
    expect(await afterFirstStream('closed', 1)).toEqual(['listen', 'listen, re-list once open', 're-list']);
  });

  it('an upstream announcing changes in a loop is re-listed once per interval, never two at once', async () => {
    const u = slowUpstream(300);
    await until('the stream', () => u.announce !== undefined);
    const started = Date.now();
    // A notification every 150 ms for 3 s: more often than a listing takes to settle.
    while (Date.now() - started < 3_000) {
      u.announce!();
      await new Promise((r) => setTimeout(r, 150));
    }
    const during = u.relists;
    await u.stop();
    // The first 100 ms after the burst began, then no sooner than MIN_RELIST_MS after it started.
    expect(during).toBeGreaterThanOrEqual(1);
    expect(during).toBeLessThanOrEqual(1 + Math.ceil(3_000 / MIN_RELIST_MS));
    expect(u.overlapped).toBe(false);
  });

  it('a re-list after a drop waits for the one a notification started: two never run at once', async () => {
    const u = slowUpstream(1_500); // slower than the drop's one-second pause
    await until('the stream', () => u.announce !== undefined);
    u.announce!();
    await until('the re-list of the change', () => u.relists === 1);
    u.streams[0]!('ended'); // the drop's own re-list comes about a second later, while the first still runs
    await until('the re-list after the drop', () => u.relists === 2);
    await u.stop();
    expect(u.overlapped).toBe(false);
  });

  it('stops for an upstream without a stream, and when aborted', async () => {
    const a = standIn();
    const stopped = followChanges(a.follow);
    await until('the first stream', () => a.streams.length === 1);
    a.streams[0]!('unsupported');
    await stopped;
    expect(a.log).toEqual(['listen']);

    const b = standIn();
    const aborted = followChanges(b.follow);
    await until('the first stream', () => b.streams.length === 1);
    b.ctl.abort();
    await aborted;
    expect(b.log).toEqual(['listen']);
  });
});

describe("the loop's pauses", () => {
  it('leave no listener on the signal the loop runs under, however many there were', async () => {
    const ctl = new AbortController();
    for (let i = 0; i < 5; i++) await pause(1, ctl.signal);
    expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(0);
    // One cut short by the abort ends at once, and leaves none either.
    const waiting = pause(60_000, ctl.signal);
    ctl.abort();
    await waiting;
    expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(0);
  });
});
