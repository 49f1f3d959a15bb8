/**
 * A session-era cancel names a request id, and a client may (wrongly) reuse an id while its first
 * call is still running (docs/upstreams.md, "Cancellation"). The latest call under an id holds it:
 * `notifications/cancelled` cancels that one at its upstream, and the earlier call runs on and is
 * answered. The upstream is a real SDK v2 server in this isolate, whose prompt `slow` is held until
 * its request is aborted; an abort lets the other held requests through (from the upstream object's
 * own context, the only one that may settle them).
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { expect, it } from 'vitest';
import worker from '../../src/index.js';
import { heldPromptServer, useHeldUpstream } from '../helpers/held-prompts.js';
import { waitFor } from '../helpers/feed.js';
import { noChangeStream } from '../helpers/in-isolate-upstream.js';
import { openSessionWith, postInit } from '../helpers/protocol.js';
import { MCP_URL } from '../helpers/worker.js';

/** The upstream requests for `slow` that arrived: whether each was aborted, and how it is let through. */
const held: { aborted: boolean; release: () => void }[] = [];

const upstream = (req: Request): Promise<Response> => {
  const refused = noChangeStream(req);
  if (refused) return Promise.resolve(refused);
  if (req.headers.get('mcp-method') === 'prompts/get' && req.headers.get('mcp-name') === 'slow')
    return new Promise((resolve) => {
      const get = { aborted: false, release: () => resolve(heldPromptServer(req)) };
      held.push(get);
      req.signal.addEventListener('abort', () => {
        get.aborted = true;
        resolve(new Response(null, { status: 499 }));
        for (const other of held) if (other !== get) other.release();
      });
    });
  return heldPromptServer(req);
};

useHeldUpstream(upstream);

/** One request through the Worker in this isolate, where the upstream's handler runs. */
function fetchHere(init: RequestInit) {
  const ctx = createExecutionContext();
  const res = Promise.resolve(worker.fetch(new Request(MCP_URL, init), env, ctx));
  return { res, done: () => waitOnExecutionContext(ctx) };
}

const send = (body: unknown, session: { id: string; version: string }) =>
  fetchHere(postInit(body, { session: session.id, version: session.version }));

const get = (id: number, name: string) => ({ jsonrpc: '2.0', id, method: 'prompts/get', params: { name } });

it('a cancel reaches the latest call under its id; the earlier call with that id is answered', async () => {
  const session = await openSessionWith(async (_url, init) => {
    const s = fetchHere(init ?? {});
    const r = await s.res;
    await s.done();
    return r;
  }, MCP_URL);
  // Listed first (the cold path), so the held gets are warm forwards through the upstream's object.
  const quick = send(get(1, 'held.quick'), session);
  expect((await quick.res).status).toBe(200);
  await quick.done();

  const first = send(get(7, 'held.slow'), session);
  await waitFor(() => held.length === 1, 'the first get reached the upstream', 10_000);
  const second = send(get(7, 'held.slow'), session);
  await waitFor(() => held.length === 2, 'the second get reached the upstream', 10_000);

  const cancel = send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } }, session);
  expect((await cancel.res).status).toBe(202);
  await cancel.done();
  await waitFor(() => held[1]!.aborted, 'the latest call was aborted upstream', 10_000);

  // The cancelled call gets no JSON-RPC response: an event stream closed with nothing on it.
  const cancelled = await second.res;
  expect(cancelled.headers.get('content-type')).toMatch(/^text\/event-stream/);
  expect(await cancelled.text()).toBe('');
  await second.done();

  // Let through when the latest was aborted, the earlier call is answered, not cancelled.
  const answered = await (await first.res).json<{ id?: number; result?: { messages?: unknown[] } }>();
  expect(held[0]!.aborted, 'the earlier call under the id ran on').toBe(false);
  expect(answered.id).toBe(7);
  expect(answered.result?.messages).toHaveLength(1);
  await first.done();
});
