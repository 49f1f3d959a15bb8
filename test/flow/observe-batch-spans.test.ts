/**
 * Spans of a 2025-03-26 batch, whose calls run at once: each call's span names its own cache
 * layer and upstream (docs/observability.md, "Traces"), never a sibling call's.
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import worker from '../../src/index.js';
import { forgetUpstreamConfig, UPSTREAMS_KEY } from '../../src/catalog/upstreams/config.js';
import { catalogWriter } from '../../src/catalog/stubs.js';
import { useTracer, type SpanLike, type Tracer } from '../../src/rpc/span.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { sdkUpstream } from '../helpers/in-isolate-upstream.js';
import { openSessionWith, postInit, request } from '../helpers/protocol.js';
import { MCP_URL, publish } from '../helpers/worker.js';

const LOCAL = FIXTURE_PROMPTS[0]!;

/** An upstream with one prompt, `hello`, answered after `delayMs`. */
const upstream = (id: string, delayMs: number) =>
  sdkUpstream(() => {
    const server = new McpServer({ name: id, version: '1.0.0' });
    server.registerPrompt('hello', { description: `${id} hello` }, async () => {
      await new Promise((r) => setTimeout(r, delayMs));
      return { messages: [{ role: 'user', content: { type: 'text', text: id } }] };
    });
    return server;
  });

// `slow` answers after `fast`: with one record for the batch, slow's span read fast's upstream.
const HOSTS: Record<string, (req: Request) => Promise<Response>> = {
  'slow.example': upstream('slow', 80),
  'fast.example': upstream('fast', 0),
};

beforeAll(async () => {
  await publish(FIXTURE_PROMPTS.slice(0, 1));
  const own = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
    const req = new Request(input, init);
    const handler = HOSTS[new URL(req.url).host];
    return handler ? handler(req) : own(req);
  });
  const entries = Object.keys(HOSTS).map((host) => {
    const id = host.split('.')[0]!;
    return { id, prefix: id, url: `https://${host}/mcp`, timeout: 30_000 };
  });
  await env.PROMPTS.put(UPSTREAMS_KEY, JSON.stringify(entries));
  forgetUpstreamConfig(env);
});

afterAll(async () => {
  vi.restoreAllMocks();
  await env.PROMPTS.delete(UPSTREAMS_KEY);
  forgetUpstreamConfig(env);
  await catalogWriter(env).reconcileUpstreams();
});

async function send(url: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(url, init), env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** A tracer that records every span, sampled like a traced request. */
function recording(): { tracer: Tracer; spans: Map<string, Record<string, unknown>> } {
  const spans = new Map<string, Record<string, unknown>>();
  const tracer: Tracer = {
    enterSpan(name, callback, ...args) {
      const attributes: Record<string, unknown> = {};
      spans.set(name, attributes);
      const span: SpanLike = { isTraced: true, setAttribute: (k, v) => void (attributes[k] = v) };
      return callback(span, ...args);
    },
  };
  return { tracer, spans };
}

it("each call of a batch has a span naming its own cache layer and upstream, never a sibling's", async () => {
  const s = await openSessionWith(send, MCP_URL, '2025-03-26');
  // Listed once, so the gets below route to the upstreams by name.
  const listed = await send(MCP_URL, postInit(request('prompts/list'), { session: s.id, version: s.version }));
  expect(JSON.stringify(await listed.json())).toContain('fast.hello');
  const { tracer, spans } = recording();
  const previous = useTracer(tracer);
  try {
    const batch = [
      request('prompts/get', { name: 'slow.hello' }),
      request('prompts/get', { name: 'fast.hello' }),
      request('prompts/get', { name: LOCAL.name, arguments: { who: 'Ada' } }),
    ];
    const res = await send(MCP_URL, postInit(batch, { session: s.id, version: s.version }));
    const replies = await res.json<{ result?: unknown }[]>();
    expect(
      replies.every((r) => r.result !== undefined),
      JSON.stringify(replies),
    ).toBe(true);
  } finally {
    useTracer(previous);
  }
  expect(spans.get('prompts/get slow.hello')).toMatchObject({
    'promptgate.cache': 'upstream',
    'promptgate.upstream': 'slow',
  });
  expect(spans.get('prompts/get fast.hello')).toMatchObject({
    'promptgate.cache': 'upstream',
    'promptgate.upstream': 'fast',
  });
  const local = spans.get(`prompts/get ${LOCAL.name}`)!;
  expect(local['promptgate.cache']).toBe('isolate');
  expect(local).not.toHaveProperty('promptgate.upstream');
  expect(local).not.toHaveProperty('promptgate.upstream_ms');
});
