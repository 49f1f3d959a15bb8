/**
 * A modern upstream without a server: an UpstreamClient whose fetch answers `server/discover` with
 * the given capabilities and every other request with what `answer` returns for it, as JSON, or
 * as the given Response (an SSE reply, say). Every request the client sent is kept in `asked`,
 * in order. For listings too large or too odd to serve from a real MCP server in a test.
 */
import { UpstreamClient } from '../../src/catalog/upstreams/client.js';
import type { Json } from '../../src/catalog/upstreams/wire.js';

let served = 0;

export function pagedUpstream(
  answer: (method: string, params: Json, id: unknown) => Json | Response,
  capabilities: Json = { prompts: {} },
  timeoutMs = 30_000,
): { client: UpstreamClient; asked: { method: string; params: Json }[] } {
  const asked: { method: string; params: Json }[] = [];
  const json = (body: unknown) =>
    new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
  const fetch = async (_url: unknown, init?: RequestInit) => {
    const msg = JSON.parse(String(init?.body)) as { id: unknown; method: string; params?: Json };
    if (msg.method === 'server/discover') return json({ jsonrpc: '2.0', id: msg.id, result: { capabilities } });
    // The legacy handshake the client sends beside the probe: refused, so the upstream is modern.
    if (msg.method === 'initialize') return new Response(null, { status: 405 });
    asked.push({ method: msg.method, params: msg.params ?? {} });
    const got = answer(msg.method, msg.params ?? {}, msg.id);
    return got instanceof Response ? got : json({ jsonrpc: '2.0', id: msg.id, result: got });
  };
  // Each its own origin: the client remembers the era per endpoint for the process.
  const url = new URL(`https://paged-${++served}.example/mcp`);
  const client = new UpstreamClient({
    url,
    headers: {},
    timeoutMs,
    clientInfo: { name: 'paged-test', version: '1' },
    fetch: fetch as typeof globalThis.fetch,
  });
  return { client, asked };
}
