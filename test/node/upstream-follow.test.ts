/**
 * The follow loop (src/catalog/upstreams/follow.ts) over a stand-in stream: what it re-lists, and
 * when, as streams end in each way. Real timers: the backoff is the loop's own (about a second).
 */
import { describe, expect, it } from 'vitest';
import { followChanges, type Follow } from '../../src/catalog/upstreams/follow.js';

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
