/**
 * `error.type` is the code of the error body actually sent (docs/observability.md), whatever was
 * thrown: an upstream's object reset under a call, a deployment missing its secret. And a reset
 * answered 503 logs `request failed, retryable`, never the error-level `request failed`.
 */
import { createExecutionContext, env, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import { afterEach, expect, it, vi } from 'vitest';
import worker from '../../src/index.js';
import { waitFor } from '../helpers/feed.js';
import { heldPromptServer, useHeldUpstream } from '../helpers/held-prompts.js';
import { noChangeStream } from '../helpers/in-isolate-upstream.js';
import { initialize, modernPost, postInit } from '../helpers/protocol.js';
import { MCP_URL } from '../helpers/worker.js';

type Line = Record<string, unknown>;

/** Upstream gets of `slow` that arrived; each is held until its object goes away. */
let heldGets = 0;
const upstream = (req: Request): Promise<Response> => {
  const refused = noChangeStream(req);
  if (refused) return Promise.resolve(refused);
  if (req.headers.get('mcp-method') === 'prompts/get' && req.headers.get('mcp-name') === 'slow') {
    heldGets += 1;
    return new Promise((resolve) =>
      req.signal.addEventListener('abort', () => resolve(new Response(null, { status: 499 }))),
    );
  }
  return heldPromptServer(req);
};
useHeldUpstream(upstream);

let printed: Line[] = [];
afterEach(() => {
  printed = [];
});

/** Everything the Worker prints as JSON, on every console channel, tagged with the channel. */
function capture(): void {
  for (const level of ['log', 'warn', 'error', 'info', 'debug'] as const)
    vi.spyOn(console, level).mockImplementation((...a: unknown[]) => {
      try {
        printed.push({ ...(JSON.parse(a.map(String).join(' ')) as Line), console: level });
      } catch {
        // Not a structured line.
      }
    });
}

async function send(e: Env, init: RequestInit): Promise<{ res: Response; body: any }> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(MCP_URL, init), e, ctx);
  const body = await res.json();
  await waitOnExecutionContext(ctx);
  return { res, body };
}

const requestLine = () => printed.filter((l) => l.msg === 'request');

it("an upstream's object reset under a get: 503 -32603, error.type -32603, logged as `request failed, retryable`", async () => {
  // Listed first (the cold path), so the held get is a warm forward through the upstream's object.
  expect((await send(env, modernPost('prompts/get', { name: 'held.quick' }).init)).res.status).toBe(200);
  capture();
  const ctx = createExecutionContext();
  const sent = worker.fetch(new Request(MCP_URL, modernPost('prompts/get', { name: 'held.slow' }).init), env, ctx);
  await waitFor(() => heldGets === 1, 'the get reached the upstream', 10_000);
  await runInDurableObject(env.UPSTREAM.getByName('held'), (_o, state) => state.abort('injected reset')).catch(
    () => {},
  );
  const res = await sent;
  const body = (await res.json()) as any;
  await waitOnExecutionContext(ctx);
  vi.restoreAllMocks();
  expect(res.status).toBe(503);
  expect(body.error.code).toBe(-32603);
  expect(requestLine()).toHaveLength(1);
  expect(requestLine()[0]).toMatchObject({ 'http.response.status_code': 503, 'error.type': '-32603' });
  const msgs = printed.map((l) => l.msg);
  expect(msgs).toContain('request failed, retryable');
  expect(msgs).not.toContain('request failed');
  expect(msgs).not.toContain('call failed, retryable');
});

it('a deployment without its signing secret: 500 -32603 on /mcp, and error.type -32603, not the status', async () => {
  capture();
  const { res, body } = await send({ ...env, SIGNING_SECRET: '' }, postInit(initialize()));
  vi.restoreAllMocks();
  expect(res.status).toBe(500);
  expect(body.error.code).toBe(-32603);
  expect(requestLine()[0]).toMatchObject({ 'http.response.status_code': 500, 'error.type': '-32603' });
});
