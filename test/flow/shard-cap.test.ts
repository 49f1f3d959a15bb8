/**
 * SHARD_MAX_STREAMS through the real Worker and the real registry shard: one shard (REGISTRY_SHARDS
 * 1) that accepts two streams. A third, legacy GET or modern listen, is refused with 503 and
 * Retry-After (the listen's error echoes its request id) instead of growing the shard past what its
 * memory holds; once a stream ends, a new one is accepted again.
 */
import { createExecutionContext, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index.js';
import { waitFor } from '../helpers/feed.js';
import { initialize, modernPost, postInit, streamHeaders } from '../helpers/protocol.js';
import { readEvents } from '../helpers/sse.js';
import { heldStreams } from '../helpers/shard-streams.js';
import { MCP_URL } from '../helpers/worker.js';

const capped = { ...env, REGISTRY_SHARDS: '1', SHARD_MAX_STREAMS: '2' } as unknown as Env;
const send = (init: RequestInit) => worker.fetch(new Request(MCP_URL, init), capped, createExecutionContext());
const { open, held, streamsAtShard } = heldStreams();

async function session(): Promise<{ id: string; version: string }> {
  const res = await send(postInit(initialize()));
  expect(res.status).toBe(200);
  return { id: res.headers.get('mcp-session-id')!, version: '2025-11-25' };
}

const getStream = async (s: { id: string; version: string }) => send({ headers: streamHeaders(s.id, s.version) });

describe('a full registry shard', () => {
  it('refuses a third stream with 503 and Retry-After, of either era, and takes one again once a stream ends', async () => {
    const [a, b, c] = [await session(), await session(), await session()];
    for (const s of [a, b]) await held(await getStream(s));
    expect(await streamsAtShard()).toBe(2);

    const refused = await getStream(c);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32603 } });

    const { body, init } = modernPost('subscriptions/listen', { notifications: { promptsListChanged: true } });
    const listen = await send(init);
    expect(listen.status).toBe(503);
    expect(await listen.json()).toMatchObject({ id: body.id, error: { code: -32603 } });

    // One client goes away: its socket closes, and the shard has room again.
    await open.shift()!.close();
    await waitFor(async () => (await streamsAtShard()) === 1, 'the first stream gone from its shard');
    const again = await getStream(c);
    expect(again.status).toBe(200);
    open.push(readEvents(again));

    // Full again, a session's new stream (a reconnect, a resume) still replaces its own old one.
    expect(await streamsAtShard()).toBe(2);
    const replacing = await getStream(c);
    expect(replacing.status).toBe(200);
    open.push(readEvents(replacing));
    await waitFor(async () => (await streamsAtShard()) === 2, 'the replaced stream gone from its shard');
  });
});
