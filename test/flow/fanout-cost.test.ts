/**
 * What one catalog change costs in storage: a few rows per registry shard, the same whether
 * one stream or dozens are attached, and nothing in any session's object (issue 16).
 */
import { env, runInDurableObject, SELF } from 'cloudflare:test';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { flushFeed, holdFeed } from '../helpers/feed.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { endListeners, openListener, settleListeners, useListenClock } from '../helpers/listen.js';
import { sessionObject } from '../helpers/tally.js';
import { MCP_URL, openSession, openStream, publish, type EventStream, type Session } from '../helpers/worker.js';
import { shardStub } from '../../src/session/fanout.js';

interface Fanout {
  generation: number;
  shards: number;
  streams: number;
  listeners: number;
  rowsWritten: number;
  busiestShard: number;
}

/** The most streams any shard holds, asked of each shard itself (what /status's live counts read). */
async function busiestNow(shards: number): Promise<number> {
  const counts = await Promise.all(Array.from({ length: shards }, (_, i) => shardStub(env, i).counts()));
  return Math.max(...counts.map((c) => c.sessions + c.listeners));
}

const lastFanout = async () =>
  (await (await SELF.fetch('https://gateway.test/status')).json<{ lastFanout: Fanout }>()).lastFanout;

/** One change, fanned out to completion; its record. */
async function change(): Promise<Fanout> {
  await holdFeed();
  const g = await publish(FIXTURE_PROMPTS);
  expect(await flushFeed()).toBe(g);
  const last = await lastFanout();
  expect(last.generation).toBe(g);
  return last;
}

/** Everything a session's object holds, to show a delivery wrote none of it. */
const storageOf = (s: Session) =>
  runInDurableObject(sessionObject(s.id), async (_o, ctx) => JSON.stringify([...(await ctx.storage.list())]));

async function attach(n: number): Promise<{ session: Session; stream: EventStream }[]> {
  const out = [];
  for (let i = 0; i < n; i++) {
    const session = await openSession();
    const stream = await openStream(session);
    await stream.next();
    await stream.next();
    out.push({ session, stream });
  }
  return out;
}

beforeAll(async () => {
  await publish(FIXTURE_PROMPTS);
  await flushFeed();
});

describe('storage writes per catalog change', () => {
  it('are a few rows per shard, whatever the number of streams, and none in any session object', async () => {
    useListenClock();
    try {
      const few = await attach(1);
      const one = await change();
      expect(one.streams).toBe(1);
      expect(one.busiestShard).toBe(1);
      expect((await few[0]!.stream.nextMessage()).id).toMatch(new RegExp(`\\.${one.generation}$`));
      // Every shard logs the change once: O(shards), not O(sessions).
      expect(one.rowsWritten).toBeGreaterThanOrEqual(one.shards * 2);
      expect(one.rowsWritten).toBeLessThanOrEqual(one.shards * 3);

      const many = [...few, ...(await attach(39))];
      const listeners = await Promise.all(Array.from({ length: 5 }, () => openListener()));
      const before = await Promise.all(many.map((c) => storageOf(c.session)));
      const forty = await change();
      expect(forty.streams).toBe(40);
      expect(forty.listeners).toBe(5);
      expect(forty.rowsWritten).toBe(one.rowsWritten);
      // The shard that held the most, of the 45: what the memory warning watches (docs/scale.md).
      expect(forty.busiestShard).toBe(await busiestNow(forty.shards));
      expect(forty.busiestShard).toBeGreaterThanOrEqual(Math.ceil(45 / forty.shards));
      // Every stream heard it, and no session's object was written (or even asked) for it.
      for (const c of many) expect((await c.stream.nextMessage()).id).toMatch(new RegExp(`\\.${forty.generation}$`));
      expect(await Promise.all(many.map((c) => storageOf(c.session)))).toEqual(before);

      await settleListeners(5);
      endListeners();
      for (const l of listeners) await l.stream.rest();
      for (const c of many) {
        await SELF.fetch(MCP_URL, { method: 'DELETE', headers: { 'mcp-session-id': c.session.id } });
        await c.stream.rest();
      }
    } finally {
      vi.useRealTimers();
    }
  });
});
