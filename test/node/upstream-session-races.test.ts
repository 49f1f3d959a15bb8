/**
 * A legacy upstream session's races, against a hand-written session-era server whose timing the
 * test controls: the first request sent beside `notifications/initialized`, which is sent again only
 * when the server refused it for want of that notification, never when it answered it.
 */
import { describe, expect, it } from 'vitest';
import { UpstreamClient, UpstreamError } from '../../src/catalog/upstreams/client.js';
import { body, listen, stop } from '../helpers/http-server.js';
import { closedAfterAll, type Running } from '../helpers/upstreams.js';

type Message = { id?: unknown; method?: string; params?: { name?: string; _meta?: Record<string, unknown> } } | null;

interface Options {
  /** How long the 202 to `notifications/initialized` takes. */
  initializedMs?: number;
  /** Until it has seen `initialized`, requests are refused with an HTTP 400 that carries no JSON-RPC body. */
  refuseUntilInitialized?: boolean;
}

/**
 * Sessions `s-1`, `s-2`, … one per initialize. A prompts/get of `bad` is answered -32602, any other
 * with one message; every prompts/get that reaches a handler is counted in `gets`.
 */
async function sessionsServer(opts: Options = {}): Promise<Running & { gets: () => number }> {
  let sessions = 0;
  let gets = 0;
  const initialized = new Set<string>();
  const { http, url } = await listen(async (req, res) => {
    const msg = req.method === 'POST' ? (JSON.parse((await body(req)) || 'null') as Message) : undefined;
    const json = (status: number, payload?: unknown, headers: Record<string, string> = {}) =>
      void res
        .writeHead(status, { 'content-type': 'application/json', ...headers })
        .end(payload === undefined ? undefined : JSON.stringify(payload));
    // The 2026-07-28 probe is refused: a session-era server.
    if (req.method !== 'POST' || msg?.params?._meta?.['io.modelcontextprotocol/protocolVersion']) return json(400);
    const sid = String(req.headers['mcp-session-id']);
    if (msg?.method === 'initialize')
      return json(
        200,
        {
          jsonrpc: '2.0',
          id: msg.id,
          result: {
            protocolVersion: '2025-11-25',
            capabilities: { prompts: {} },
            serverInfo: { name: 's', version: '1' },
          },
        },
        { 'mcp-session-id': `s-${++sessions}` },
      );
    if (msg?.method === 'notifications/initialized') {
      await new Promise((r) => setTimeout(r, opts.initializedMs ?? 0));
      initialized.add(sid);
      return json(202);
    }
    if (opts.refuseUntilInitialized && !initialized.has(sid)) return void res.writeHead(400).end();
    if (msg?.method === 'prompts/get') {
      gets += 1;
      if (msg.params?.name === 'bad')
        return json(200, { jsonrpc: '2.0', id: msg.id, error: { code: -32602, message: 'Missing argument "repo"' } });
      return json(200, {
        jsonrpc: '2.0',
        id: msg.id,
        result: { messages: [{ role: 'user', content: { type: 'text', text: String(msg.params?.name) } }] },
      });
    }
    return json(200, { jsonrpc: '2.0', id: msg?.id, error: { code: -32601, message: 'Method not found' } });
  });
  return { url: `${url}/mcp`, gets: () => gets, close: () => stop(http) };
}

const started = closedAfterAll();
const client = (url: string) =>
  new UpstreamClient({
    url: new URL(url),
    headers: {},
    timeoutMs: 3000,
    clientInfo: { name: 'race-test', version: '1' },
  });

describe('the first request on a new session, sent beside notifications/initialized', () => {
  it('is not sent again when the upstream answered it, even with an error', async () => {
    const server = await started(sessionsServer({ initializedMs: 200 }));
    const c = client(server.url);
    const err = (await c.request('prompts/get', { name: 'bad' }).catch((e: unknown) => e)) as UpstreamError;
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err).toMatchObject({ kind: 'rpc', code: -32602 });
    expect(server.gets()).toBe(1);
    await c.close();
  });

  it('is sent again once the notification is in when it was refused for want of it (HTTP 400, no answer)', async () => {
    const server = await started(sessionsServer({ initializedMs: 200, refuseUntilInitialized: true }));
    const c = client(server.url);
    expect((await c.request('prompts/get', { name: 'alpha' })).messages).toHaveLength(1);
    expect(server.gets()).toBe(1);
    await c.close();
  });
});
