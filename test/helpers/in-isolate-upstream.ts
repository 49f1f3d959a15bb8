/**
 * An upstream served by a handler in the test's own isolate (a real SDK server's `fetch`, say):
 * the Worker's fetches of its host reach the handler, everything else the network as before, and
 * it is configured as a deploy configures upstreams (in KV, never listed yet). For workerd tests
 * that need an upstream without a process of its own; e2e tests start real servers instead.
 */
import { env } from 'cloudflare:test';
import { createMcpHandler, type McpServer } from '@modelcontextprotocol/server';
import { vi } from 'vitest';
import { forgetUpstreamConfig, UPSTREAMS_KEY } from '../../src/catalog/upstreams/config.js';
import { catalogWriter } from '../../src/catalog/stubs.js';

/** Mounts `handler` as the upstream at `https://<host>/mcp` with this config entry; resolves to the undo. */
export async function mountInIsolate(
  host: string,
  handler: (req: Request) => Promise<Response>,
  entry: { id: string; prefix: string; timeout?: number },
): Promise<() => Promise<void>> {
  const own = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
    const req = new Request(input, init);
    return new URL(req.url).host === host ? handler(req) : own(req);
  });
  await env.PROMPTS.put(UPSTREAMS_KEY, JSON.stringify([{ ...entry, url: `https://${host}/mcp` }]));
  forgetUpstreamConfig(env);
  return async () => {
    vi.restoreAllMocks();
    await env.PROMPTS.delete(UPSTREAMS_KEY);
    forgetUpstreamConfig(env);
    await catalogWriter(env).reconcileUpstreams();
  };
}

/**
 * The answer of an upstream that offers no change stream (a GET stream or a 2026-07-28 listen), else
 * undefined: its object's follow loop then ends at once instead of holding a stream open in the test.
 */
export const noChangeStream = (req: Request): Response | undefined =>
  req.method === 'GET' || req.headers.get('mcp-method') === 'subscriptions/listen'
    ? new Response(null, { status: 405 })
    : undefined;

/** A real SDK server as an upstream: made per request (nothing of it crosses requests), no change stream. */
export function sdkUpstream(make: () => McpServer): (req: Request) => Promise<Response> {
  return async (req) => noChangeStream(req) ?? createMcpHandler(make).fetch(req);
}
