/**
 * A legacy upstream session's races, against a hand-written session-era server whose timing the
 * test controls: the first request sent beside `notifications/initialized`, which is sent again only
 * when the server refused it for want of that notification, never when it answered it; and calls
 * that meet the 404 of one forgotten session, which open one new session between them, not one each.
 */
import { describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { UpstreamClient, UpstreamError } from '../../src/catalog/upstreams/client.js';
import { body, initializeReply, listen, stop } from '../helpers/http-server.js';
import { closedAfterAll, type Running } from '../helpers/upstreams.js';

type Message = { id?: unknown; method?: string; params?: { name?: string; _meta?: Record<string, unknown> } } | null;

interface Options {
  /** How long the 202 to `notifications/initialized` takes. */
  initializedMs?: number;
  /** Until it has seen `initialized`, requests are refused with an HTTP 400 that carries no JSON-RPC body. */
  refuseUntilInitialized?: boolean;
}

interface SessionsServer extends Running {
  gets: () => number;
  /** How many sessions it opened, and which of them are open still (not ended with DELETE, not forgotten). */
  opened: () => number;
  open: () => string[];
  /** Forgets a session: a request carrying it is answered 404, once `release` is called when `hold` is set. */
  forget: (sid: string, hold?: boolean) => void;
  /** How many requests wait for `release`. */
  waiting: () => number;
  release: () => void;
}

/**
 * Sessions `s-1`, `s-2`, … one per initialize; no change stream (GET 405). A prompts/get of `bad` is
 * answered -32602, any other with one message; every prompts/get that reaches a handler is counted.
 */
async function sessionsServer(opts: Options = {}): Promise<SessionsServer> {
  let sessions = 0;
  let gets = 0;
  const initialized = new Set<string>();
  const open = new Set<string>();
  const forgotten = new Map<string, boolean>();
  let waiting: (() => void)[] = [];
  const notFound = (res: ServerResponse) =>
    res.writeHead(404).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' } }));
  const { http, url } = await listen(async (req, res) => {
    const msg = req.method === 'POST' ? (JSON.parse((await body(req)) || 'null') as Message) : undefined;
    const json = (status: number, payload?: unknown, headers: Record<string, string> = {}) =>
      void res
        .writeHead(status, { 'content-type': 'application/json', ...headers })
        .end(payload === undefined ? undefined : JSON.stringify(payload));
    const known = req.headers['mcp-session-id'] as string | undefined;
    if (known !== undefined && forgotten.has(known)) {
      if (forgotten.get(known)) await new Promise<void>((r) => waiting.push(r));
      return void notFound(res);
    }
    if (req.method === 'DELETE') {
      open.delete(String(known));
      return void res.writeHead(200).end();
    }
    if (req.method === 'GET') return void res.writeHead(405).end();
    // The 2026-07-28 probe is refused: a session-era server.
    if (req.method !== 'POST' || msg?.params?._meta?.['io.modelcontextprotocol/protocolVersion']) return json(400);
    const sid = String(known);
    if (msg?.method === 'initialize') {
      open.add(`s-${++sessions}`);
      return json(200, initializeReply(msg.id, 's'), { 'mcp-session-id': `s-${sessions}` });
    }
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
  return {
    url: `${url}/mcp`,
    gets: () => gets,
    opened: () => sessions,
    open: () => [...open],
    forget: (sid, hold = false) => void (forgotten.set(sid, hold), open.delete(sid)),
    waiting: () => waiting.length,
    release: () => void (waiting.forEach((r) => r()), (waiting = [])),
    close: () => stop(http),
  };
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

describe('calls that meet the 404 of one forgotten session', () => {
  it('open one new session between them: one that fails after another replaced it uses the replacement', async () => {
    const server = await started(sessionsServer());
    const c = client(server.url);
    await c.request('prompts/get', { name: 'first' });
    // s-1 is forgotten: a call and a listen on it wait for their 404 while another call re-initializes.
    server.forget('s-1', true);
    const late = c.request('prompts/get', { name: 'late' });
    const listening = c.listen(() => undefined, new AbortController().signal);
    await expect.poll(server.waiting).toBe(2);
    server.forget('s-1');
    expect((await c.request('prompts/get', { name: 'early' })).messages).toHaveLength(1);
    expect(server.open()).toEqual(['s-2']);
    server.release();
    expect((await late).messages).toHaveLength(1);
    expect(await listening).toBe('ended');
    expect(server.opened()).toBe(2);
    // The replacement is still the client's own: its close ends it, and nothing is left open upstream.
    await c.close();
    expect(server.open()).toEqual([]);
  });
});
