/**
 * A 2026-07-28 client cancels by closing its request (docs/upstreams.md, "Cancellation"): when the
 * request's signal aborts while its prompts/get waits on an upstream, the gateway cancels the call
 * at the upstream's object, which aborts the upstream request. The upstream is a real SDK v2
 * server in this isolate (the Worker's fetch of its host reaches it), whose prompt `slow` is held
 * until its request is aborted. (Whether the runtime aborts the signal when a client disconnects
 * is the platform's part: local `wrangler dev` does not before the response starts, so the signal
 * is aborted here by the caller that made it.)
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { expect, it } from 'vitest';
import worker from '../../src/index.js';
import { heldPromptServer, useHeldUpstream } from '../helpers/held-prompts.js';
import { waitFor } from '../helpers/feed.js';
import { noChangeStream } from '../helpers/in-isolate-upstream.js';
import { modernPost } from '../helpers/protocol.js';
import { MCP_URL } from '../helpers/worker.js';

/** The upstream requests for `slow` that arrived, and whether each was aborted. */
const held: { aborted: boolean }[] = [];

const upstream = (req: Request): Promise<Response> => {
  const refused = noChangeStream(req);
  if (refused) return Promise.resolve(refused);
  if (req.headers.get('mcp-method') === 'prompts/get' && req.headers.get('mcp-name') === 'slow') {
    const get = { aborted: false };
    held.push(get);
    return new Promise((resolve) =>
      req.signal.addEventListener('abort', () => {
        get.aborted = true;
        resolve(new Response(null, { status: 499 }));
      }),
    );
  }
  return heldPromptServer(req);
};

useHeldUpstream(upstream);

/** One modern prompts/get through the Worker, with the caller's signal as the request's. */
function get(name: string, signal?: AbortSignal) {
  const { init } = modernPost('prompts/get', { name });
  const ctx = createExecutionContext();
  const res = Promise.resolve(worker.fetch(new Request(MCP_URL, { ...init, signal }), env, ctx));
  return { res, done: () => waitOnExecutionContext(ctx) };
}

it('a modern get whose request is closed is cancelled upstream, and the next call is served', async () => {
  // Listed first (the cold path), so the held get is a warm forward through the upstream's object.
  const quick = get('held.quick');
  expect((await quick.res).status).toBe(200);
  await quick.done();
  const ctl = new AbortController();
  const slow = get('held.slow', ctl.signal);
  await waitFor(() => held.length === 1, 'the get reached the upstream', 10_000);
  expect(held[0]!.aborted).toBe(false);
  ctl.abort();
  await waitFor(() => held[0]!.aborted, 'the upstream request was aborted', 10_000);
  await slow.res.then(
    (r) => r.body?.cancel(),
    () => undefined,
  );
  await slow.done();
  const again = get('held.quick');
  const body = await (await again.res).json<{ result?: { messages?: unknown[] } }>();
  expect(body.result?.messages).toHaveLength(1);
  await again.done();
});
