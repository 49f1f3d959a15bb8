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
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { KV_KEYS, writeSnapshot } from '../../src/catalog/store.js';
import type { CatalogSnapshot } from '../../src/catalog/types.js';
import { shardStub } from '../../src/session/fanout.js';
import { flushFeed } from '../helpers/feed.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { openListener } from '../helpers/listen.js';
import { finishLegacy, legacyClient } from '../helpers/tally.js';
import { publish } from '../helpers/worker.js';

const SHARDS = 4;

beforeAll(async () => {
  await publish(FIXTURE_PROMPTS);
  await flushFeed();
});

/** A new generation in KV and at every shard (logged, marked announced), with no frame sent to any socket. */
async function loseDelivery(): Promise<number> {
  const head = (await env.PROMPTS.get<CatalogSnapshot>(KV_KEYS.head, 'json'))!;
  const generation = head.generation + 1;
  await writeSnapshot(env.PROMPTS, { ...head, generation });
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
