/**
 * The upstream object's client slot (catalog/upstreams/client-slot.ts), as its forward path uses it:
 * a call the upstream refuses (HTTP 400) retires the client, so later calls start on a new one,
 * but another caller's call already under way on it still gets its answer. On HTTP+SSE (2024-11-05)
 * that answer comes back on the client's one stream, which closing the client would end. And as
 * every good listing uses it: an upstream with no change stream is not asked for one on every poll.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClientSlot, LISTEN_RECHECK_MS } from '../../src/catalog/upstreams/client-slot.js';
import { UpstreamError } from '../../src/catalog/upstreams/client.js';
import { parseUpstreams } from '../../src/catalog/upstreams/parse.js';
import { closedAfterAll, sseServer, strictLegacyServer } from '../helpers/upstreams.js';

const started = closedAfterAll();
const opts = { separator: '.', secrets: {}, ownSecrets: new Set<string>(), allowHttpLoopback: true };

describe('a refused request on an HTTP+SSE upstream', () => {
  it("retires the client: the others' calls under way finish on it, later calls get a new one, and it is closed after", async () => {
    const server = await started(sseServer(['slow', 'bad'], { slow: 'slow', refuse: 'bad' }));
    const [u] = parseUpstreams(JSON.stringify([{ id: 'sse', url: server.url }]), opts);
    const background: Promise<unknown>[] = [];
    const slot = new ClientSlot((p) => void background.push(p));
    const client = slot.clientFor(u!);
    await client.listPrompts(); // the stream is open
    /** One forwarded call, held on the slot as the upstream object's forward path holds it. */
    const forward = async (name: string) => {
      const c = slot.clientFor(u!);
      const release = slot.hold(c);
      try {
        return await c.request('prompts/get', { name });
      } catch (e) {
        if (e instanceof UpstreamError && e.code === 400) slot.retire(c);
        throw e;
      } finally {
        release();
      }
    };
    const slow = forward('slow');
    await expect(forward('bad')).rejects.toMatchObject({ kind: 'http', code: 400 });
    // A later call is on a new client; the slow one, on the retired client's stream, is answered.
    expect(slot.clientFor(u!)).not.toBe(client);
    expect(await slow).toMatchObject({ messages: [{ role: 'user', content: { type: 'text', text: 'sse slow' } }] });
    // Its last call done, the retired client was closed: it listens no more.
    await Promise.all(background);
    expect(await client.listen(() => undefined, new AbortController().signal)).toBe('closed');
    slot.drop();
    await Promise.all(background);
  });
});

describe('an upstream that offers no change stream', () => {
  afterEach(() => void vi.useRealTimers());

  it('is asked for one once per client, and again after LISTEN_RECHECK_MS, not on every listing', async () => {
    const server = await started(strictLegacyServer(['one'], 0));
    const [u] = parseUpstreams(JSON.stringify([{ id: 'strict', url: server.url }]), opts);
    const background: Promise<unknown>[] = [];
    const slot = new ClientSlot((p) => void background.push(p));
    await slot.clientFor(u!).listPrompts();
    /** A good listing's follow (upstream-object.ts), then long enough for a GET it would send to land. */
    const listed = async () => {
      slot.follow(u!, async () => undefined);
      await vi.waitFor(() => expect(server.gets()).toBeGreaterThan(0));
      await new Promise((r) => setTimeout(r, 150));
    };
    await listed();
    expect(server.gets()).toBe(1);
    await listed();
    await listed();
    expect(server.gets()).toBe(1);
    // A new client (the old one failed, or the configuration changed) asks at once.
    slot.close();
    slot.clientFor(u!);
    await listed();
    expect(server.gets()).toBe(2);
    // The same client asks again once the answer is old: an upstream redeployed with a stream is followed.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + LISTEN_RECHECK_MS + 1 });
    await listed();
    expect(server.gets()).toBe(3);
    slot.drop();
    await Promise.all(background);
  });
});
