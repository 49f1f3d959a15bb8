/**
 * A delivery that never reached a stream's socket (session/bridge.ts `lagging`): the shard
 * announced a change and logged it, but this stream's socket did not carry it (a half-open
 * connection, a restart its Worker never heard of), so nothing tells the stream it missed one.
 * Its isolate serves the new catalog, though: once the stream has trailed it past the grace
 * (the coalescing window and two keepalives), the stream reconnects and hears the change once.
 *
 * The lost delivery is staged at the real objects: the new generation is written to KV as the
 * catalog writer writes it, and the shard's log and announced mark are written as its delivery
 * writes them, with no frame sent.
 *
 * A generation made without a notification (an upstream going stale) is not a lost delivery: its
 * snapshot names the last announced generation, and no stream goes to its shard for it.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogWriter } from '../../src/catalog/stubs.js';
import { forgetUpstreamConfig, UPSTREAMS_KEY } from '../../src/catalog/upstreams/config.js';
import { KV_KEYS } from '../../src/catalog/store.js';
import { writeSnapshot } from '../../src/catalog/snapshot-write.js';
import type { CatalogSnapshot } from '../../src/catalog/types.js';
import { shardStub } from '../../src/session/fanout.js';
import { flushFeed } from '../helpers/feed.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { openListener } from '../helpers/listen.js';
import { finishLegacy, legacyClient, shardOf } from '../helpers/tally.js';
import { publish } from '../helpers/worker.js';

const SHARDS = 4;

beforeAll(async () => {
  await publish(FIXTURE_PROMPTS);
  await flushFeed();
});

afterAll(async () => {
  await env.PROMPTS.delete(UPSTREAMS_KEY);
  forgetUpstreamConfig(env);
});

const head = async () => (await env.PROMPTS.get<CatalogSnapshot>(KV_KEYS.head, 'json'))!;

/** A new generation in KV and at every shard (logged, marked announced), with no frame sent to any socket. */
async function loseDelivery(): Promise<number> {
  const now = await head();
  const generation = now.generation + 1;
  await writeSnapshot(env.PROMPTS, { ...now, generation, announced: generation });
  for (let i = 0; i < SHARDS; i++)
    await runInDurableObject(shardStub(env, i), (_o, ctx) => {
      ctx.storage.sql.exec(
        'INSERT INTO events (generation, lists, at) VALUES (?, ?, ?)',
        generation,
        '["prompts"]',
        Date.now(),
      );
      ctx.storage.sql.exec('INSERT OR REPLACE INTO announced (id, generation) VALUES (0, ?)', generation);
    });
  return generation;
}

describe('a delivery lost on the way to a stream', () => {
  it('reaches a legacy stream once its lag outlasts the grace, replayed by its shard, exactly once', async () => {
    const c = await legacyClient();
    const generation = await loseDelivery();
    const got = await c.stream.nextMessage();
    expect(got.message.method).toBe('notifications/prompts/list_changed');
    expect(got.id).toBe(`${c.primed!.replace(/\.\d+$/, '')}.${generation}`);
    const t = await finishLegacy(c);
    expect(t.logged).toEqual([generation]);
    expect(t.received).toEqual([]);
    expect(t.duplicates).toBe(0);
  });

  it('reaches a listen stream once its lag outlasts the grace, once', async () => {
    const l = await openListener();
    await loseDelivery();
    const got = await l.stream.nextMessage();
    expect(got.message).toMatchObject({
      method: 'notifications/prompts/list_changed',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': l.id } },
    });
    // Nothing more: the reconnect's `open` names the same generation, which the stream now has.
    const next = await Promise.race([l.stream.nextMessage(), new Promise((r) => setTimeout(() => r('none'), 2_500))]);
    expect(next).toBe('none');
    await l.stream.close();
  });
});

describe('a generation made without a notification', () => {
  it('names the last announced generation, and sends no stream to its shard', async () => {
    await env.PROMPTS.put(UPSTREAMS_KEY, JSON.stringify([{ id: 'fl', url: 'https://fl.example/mcp', prefix: 'fl' }]));
    forgetUpstreamConfig(env);
    const listed = { id: 'fl', prefix: 'fl', prompts: [{ name: 'fl.one', origin: { upstream: 'fl', name: 'one' } }] };
    expect((await catalogWriter(env).upstreamsReported([listed])).changed).toBe(true);
    await flushFeed();
    const announced = (await head()).generation;
    expect((await head()).announced).toBe(announced);
    const c = await legacyClient();
    // The upstream fails: its listing is kept, marked stale, in a new generation nobody is told of.
    expect(await catalogWriter(env).upstreamsReported([{ id: 'fl', prefix: 'fl', error: 'http_500: boom' }])).toEqual(
      expect.objectContaining({ changed: false }),
    );
    const silent = await head();
    expect(silent.generation).toBeGreaterThan(announced);
    expect(silent.announced).toBe(announced);
    // Marked at the shard: a reconnect would replace this socket with an unmarked one.
    await runInDurableObject(shardOf(c.session.id), (_o, ctx) =>
      ctx.getWebSockets(c.session.id).forEach((ws) => ws.serializeAttachment({ mark: 'first' })),
    );
    // Past the grace (NOTIFY_COALESCE_MS 500 + two 300 ms keepalives) with the isolate on the new generation.
    await new Promise((r) => setTimeout(r, 3_000));
    const marks = await runInDurableObject(shardOf(c.session.id), (_o, ctx) =>
      ctx.getWebSockets(c.session.id).map((ws) => ws.deserializeAttachment() as { mark?: string } | null),
    );
    expect(marks).toEqual([{ mark: 'first' }]);
    const t = await finishLegacy(c);
    expect(t.received).toEqual([]);
  });
});
