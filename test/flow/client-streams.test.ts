/**
 * SHARD_MAX_CLIENT_STREAMS through the real Worker and the real registry shard: one shard that
 * takes ten streams, of which one client address may hold two. A third from that address, legacy
 * GET or modern listen, is refused with 429 -32000 and Retry-After (the listen's error echoes its
 * id); another address, and a session replacing its own stream, are served; a stream that ends
 * frees its place. An IPv6 client is counted by its /64, as the rate limits count it.
 */
import { createExecutionContext, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index.js';
import { waitFor } from '../helpers/feed.js';
import { initialize, modernPost, postInit, streamHeaders } from '../helpers/protocol.js';
import { heldStreams } from '../helpers/shard-streams.js';
import { shardStub } from '../../src/session/fanout.js';
import { STREAM_LISTEN_HEADER } from '../../src/session/events.js';
import { limitHeaders } from '../../src/session/stream-limits.js';
import { MCP_URL } from '../helpers/worker.js';

const capped = {
  ...env,
  REGISTRY_SHARDS: '1',
  SHARD_MAX_STREAMS: '10',
  SHARD_MAX_CLIENT_STREAMS: '2',
} as unknown as Env;
const send = (init: RequestInit) => worker.fetch(new Request(MCP_URL, init), capped, createExecutionContext());
const A = '203.0.113.5';
const B = '2001:db8:0:7::1';

async function session(): Promise<string> {
  const res = await send(postInit(initialize()));
  expect(res.status).toBe(200);
  return res.headers.get('mcp-session-id')!;
}

const getStream = (id: string, ip: string) =>
  send({ headers: { ...streamHeaders(id, '2025-11-25'), 'cf-connecting-ip': ip } });

const { held, streamsAtShard } = heldStreams();

describe("one client's share of a registry shard", () => {
  it('refuses a client its third stream with 429 and Retry-After, of either era, while others and replacements are served', async () => {
    const [s1, s2, s3, s4] = [await session(), await session(), await session(), await session()];
    const first = await held(await getStream(s1, A));
    await held(await getStream(s2, A));

    const refused = await getStream(s3, A);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    const body = await refused.json<{ error: { code: number; message: string } }>();
    expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    expect(body.error.message).toMatch(/Too Many Requests: .*open streams/);

    const { body: listenBody, init } = modernPost('subscriptions/listen', {
      notifications: { promptsListChanged: true },
    });
    const listen = await send({
      ...init,
      headers: { ...(init.headers as Record<string, string>), 'cf-connecting-ip': A },
    });
    expect(listen.status).toBe(429);
    expect(await listen.json()).toMatchObject({ id: listenBody.id, error: { code: -32000 } });

    // A session at the cap may still replace its own stream: the old one goes, so it does not count.
    await held(await getStream(s2, A));
    // Another client has a share of its own; an address in its /64 is the same client.
    await held(await getStream(s3, B));
    await held(await getStream(s4, B.replace(/1$/, 'ffff')));
    expect((await getStream(await session(), '2001:db8:0:7:aaaa::9')).status).toBe(429);

    // One of A's streams ends: its place is free again.
    await first.close();
    await waitFor(async () => (await streamsAtShard()) === 3, "A's first stream gone from its shard");
    await held(await getStream(await session(), A));
  });

  it("does not count a listen stream's own old socket against it when it reconnects", async () => {
    const stub = shardStub(env, 7);
    const ask = (listen: string) =>
      stub.fetch('https://object.internal/stream', {
        headers: {
          upgrade: 'websocket',
          ...limitHeaders({ maxStreams: 10, client: 'c-reconnect', maxClientStreams: 1 }),
          [STREAM_LISTEN_HEADER]: listen,
        },
      });
    const first = await ask('L1');
    // Its socket is still open (closing, as a lagging one is) when the same stream comes back.
    const again = await ask('L1');
    const other = await ask('L2');
    const statuses = [first.status, again.status, other.status];
    for (const r of [first, again]) {
      r.webSocket?.accept();
      r.webSocket?.close(1000, 'done');
    }
    expect(statuses).toEqual([101, 101, 429]);
  });
});
