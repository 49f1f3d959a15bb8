/**
 * GET /status's live figures: stream counts from every registry shard (legacy
 * session members and modern listeners), and the last fan-out's duration and
 * size from the change feed. A shard that cannot answer is reported as
 * unknown, never a failed /status.
 */
import { createExecutionContext, env, runInDurableObject, SELF } from 'cloudflare:test';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import worker from '../../src/index.js';
import { writerObject } from '../../src/catalog/stubs.js';
import { shardStub } from '../../src/session/fanout.js';
import { flush } from '../../src/usage/flush.js';
import { usageObject } from '../../src/usage/stub.js';
import { feedStub, flushFeed, holdFeed, runFeedAlarm } from '../helpers/feed.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { endListeners, openListener, settleListeners, useListenClock } from '../helpers/listen.js';
import { MCP_URL, openSession, openStream, publish } from '../helpers/worker.js';
import { postInit, request } from '../helpers/protocol.js';

interface Live {
  sessions: number;
  listeners: number;
  streams: number;
  shards: number;
  unknownShards: number;
  oldestAnnounced: number | null;
}

interface Fanout {
  generation: number;
  startedAt: string;
  durationMs: number;
  shards: number;
  shardFailures: number;
  listeners: number;
  streams: number;
  rowsWritten: number;
}

interface Errors {
  since: string;
  byClass: Record<string, number>;
}

async function statusBody(): Promise<{
  live: Live;
  lastFanout: Fanout | null | 'unknown';
  errors: Errors | 'unknown';
  feed: { published: number; pending: number | null } | 'unknown';
}> {
  const res = await SELF.fetch('https://gateway.test/status');
  expect(res.status).toBe(200);
  // Per caller and live: never kept by a cache.
  expect(res.headers.get('cache-control')).toBe('no-store');
  return res.json();
}

const endSession = (id: string) => SELF.fetch(MCP_URL, { method: 'DELETE', headers: { 'mcp-session-id': id } });

beforeAll(async () => {
  await publish(FIXTURE_PROMPTS);
  await flushFeed();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('GET /status live counts', () => {
  it('counts the open streams of both eras, from every shard', async () => {
    useListenClock();
    const before = (await statusBody()).live;
    expect(before).toMatchObject({ shards: 4, unknownShards: 0 });
    const a = await openSession();
    const b = await openSession('2025-03-26');
    const streams = [await openStream(a), await openStream(b)];
    const listeners = await Promise.all([openListener(), openListener(), openListener()]);
    const during = (await statusBody()).live;
    expect(during).toEqual({
      sessions: before.sessions + 2,
      listeners: before.listeners + 3,
      streams: before.streams + 5,
      shards: 4,
      unknownShards: 0,
      oldestAnnounced: (await feedStub().status()).published,
    });
    // A session ended leaves its shard at once; the listeners end with their lifetime.
    await endSession(a.id);
    await endSession(b.id);
    for (const s of streams) await s.rest();
    await settleListeners(3);
    endListeners();
    for (const l of listeners) await l.stream.rest();
    const after = (await statusBody()).live;
    expect(after.sessions).toBe(before.sessions);
  });

  it('reports a shard that fails as unknown, and still answers 200', async () => {
    const before = (await statusBody()).live;
    // A real failure inside the object: its announced table is gone, so counting throws there.
    await runInDurableObject(shardStub(env, 2), (_o, ctx) =>
      ctx.storage.sql.exec('ALTER TABLE announced RENAME TO a2'),
    );
    try {
      const broken = (await statusBody()).live;
      expect(broken.unknownShards).toBe(1);
      expect(broken.shards).toBe(4);
      expect(broken.sessions).toBeLessThanOrEqual(before.sessions);
    } finally {
      await runInDurableObject(shardStub(env, 2), (_o, ctx) =>
        ctx.storage.sql.exec('ALTER TABLE a2 RENAME TO announced'),
      );
    }
    expect((await statusBody()).live.unknownShards).toBe(0);
  });
});

describe('GET /status when the change feed does not answer', () => {
  it("reports the feed's figures as unknown within the 2 s bound, and still answers 200", async () => {
    expect((await statusBody()).feed).toMatchObject({ pending: null });
    // The feed is busy for 4 s: every call to it waits behind that.
    const busy = runInDurableObject(feedStub(), (_o, ctx) =>
      ctx.blockConcurrencyWhile(() => new Promise((r) => setTimeout(r, 4_000))),
    );
    await new Promise((r) => setTimeout(r, 50));
    // Unbounded, the read would wait the 4 s out and see the feed's real figures.
    const body = await statusBody();
    expect(body.feed).toBe('unknown');
    expect(body.lastFanout).toBe('unknown');
    await busy;
    expect((await statusBody()).feed).toMatchObject({ pending: null });
  });
});

describe('GET /status when the catalog writer does not answer', () => {
  it('reports upstream health and collisions as unknown within the 2 s bound, and still answers 200', async () => {
    const read = async () => {
      const res = await SELF.fetch('https://gateway.test/status');
      expect(res.status).toBe(200);
      return res.json<{ upstreams: unknown; collisions: unknown; generation: number }>();
    };
    const before = await read();
    expect(Array.isArray(before.upstreams)).toBe(true);
    expect(Array.isArray(before.collisions)).toBe(true);
    // The writer is busy for 4 s: every call to it waits behind that.
    const busy = runInDurableObject(writerObject(env), (_o, ctx) =>
      ctx.blockConcurrencyWhile(() => new Promise((r) => setTimeout(r, 4_000))),
    );
    await new Promise((r) => setTimeout(r, 50));
    // Unbounded, the read would wait the 4 s out and see the writer's real figures.
    const body = await read();
    expect(body.upstreams).toBe('unknown');
    expect(body.collisions).toBe('unknown');
    expect(body.generation).toBe(before.generation);
    await busy;
    expect(Array.isArray((await read()).upstreams)).toBe(true);
  });
});

describe('GET /status last fan-out', () => {
  it('names the generation, its duration and what it reached', async () => {
    const s = await openSession();
    const stream = await openStream(s);
    await stream.next();
    await holdFeed();
    const g = await publish(FIXTURE_PROMPTS);
    const started = Date.now();
    expect(await flushFeed()).toBe(g);
    const last = (await statusBody()).lastFanout as Fanout;
    expect(last).toMatchObject({ generation: g, shards: 4, shardFailures: 0 });
    expect(last.streams).toBeGreaterThanOrEqual(1);
    expect(last.rowsWritten).toBeGreaterThanOrEqual(4);
    expect(last.durationMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(last.startedAt)).toBeGreaterThanOrEqual(started - 1000);
    await endSession(s.id);
    await stream.rest();
  });

  it('records a fan-out that failed at a shard, with its failures', async () => {
    await holdFeed();
    const g = await publish(FIXTURE_PROMPTS);
    // Its event log is gone, so logging the change throws there.
    await runInDurableObject(shardStub(env, 1), (_o, ctx) => ctx.storage.sql.exec('ALTER TABLE events RENAME TO e2'));
    try {
      await runFeedAlarm();
      const last = (await statusBody()).lastFanout as Fanout;
      expect(last).toMatchObject({ generation: g, shards: 4, shardFailures: 1 });
    } finally {
      await runInDurableObject(shardStub(env, 1), (_o, ctx) => ctx.storage.sql.exec('ALTER TABLE e2 RENAME TO events'));
    }
    expect(await flushFeed()).toBe(g);
    expect((await statusBody()).lastFanout).toMatchObject({ generation: g, shardFailures: 0 });
  });
});

describe('GET /status errors by class', () => {
  /** Through the Worker in this isolate, so its usage tally is the one flush() sends. */
  const call = (url: string, init?: RequestInit) => worker.fetch(new Request(url, init), env, createExecutionContext());

  it('counts the last hour’s failed requests by error.type, once flushed', async () => {
    const before = (await statusBody()).errors as Errors;
    expect(Date.now() - Date.parse(before.since)).toBeGreaterThanOrEqual(3_600_000);
    expect(Date.now() - Date.parse(before.since)).toBeLessThan(7_200_000);
    // A legacy request under a session nobody opened: 404 with -32001.
    const stale = postInit(request('prompts/list'), { session: 'no-such-session' });
    for (let i = 0; i < 3; i++) expect((await call(MCP_URL, stale)).status).toBe(404);
    const bad = await call(MCP_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{not json',
    });
    expect(bad.status).toBe(400);
    await flush(env);
    const after = ((await statusBody()).errors as Errors).byClass;
    expect(after['-32001']).toBe((before.byClass['-32001'] ?? 0) + 3);
    expect(after['-32700']).toBe((before.byClass['-32700'] ?? 0) + 1);
  });

  it('says unknown when the usage store fails, and still answers 200', async () => {
    await runInDurableObject(usageObject(env), (_o, ctx) => ctx.storage.sql.exec('ALTER TABLE errors RENAME TO e2'));
    try {
      expect((await statusBody()).errors).toBe('unknown');
    } finally {
      await runInDurableObject(usageObject(env), (_o, ctx) => ctx.storage.sql.exec('ALTER TABLE e2 RENAME TO errors'));
    }
    expect((await statusBody()).errors).not.toBe('unknown');
  });
});
