/**
 * The upstream object's client slot (catalog/upstreams/client-slot.ts), as its forward path uses it:
 * a call the upstream refuses (HTTP 400) retires the client, so later calls start on a new one,
 * but another caller's call already under way on it still gets its answer. On HTTP+SSE (2024-11-05)
 * that answer comes back on the client's one stream, which closing the client would end.
 */
import { describe, expect, it } from 'vitest';
import { ClientSlot } from '../../src/catalog/upstreams/client-slot.js';
import { UpstreamError } from '../../src/catalog/upstreams/client.js';
import { parseUpstreams } from '../../src/catalog/upstreams/parse.js';
import { closedAfterAll, sseServer } from '../helpers/upstreams.js';

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
