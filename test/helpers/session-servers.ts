/**
 * Hand-written session-era (2025-11-25) upstreams, for what the SDK servers do not do: settle on
 * another revision, ping the client, poll (close an SSE reply before its response). Each refuses
 * the 2026-07-28 probe and answers initialize as a session-era server, with its own session id.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { body, listen, stop } from './http-server.js';
import type { Running } from './upstreams.js';

type Message = { id?: unknown; method?: string; params?: { _meta?: Record<string, unknown> } } | null;

/** The session-era front (probe refused, initialize answered); `handle` gets every other request. */
async function sessionServer(
  session: string,
  version: string,
  handle: (req: IncomingMessage, res: ServerResponse, msg: Message | undefined) => void | Promise<void>,
  /** Each notification the client sends, with the request it came in. */
  notified?: (msg: NonNullable<Message>, req: IncomingMessage) => void,
): Promise<{ url: string; close: () => Promise<void> }> {
  const { http, url } = await listen(async (req, res) => {
    const msg = req.method === 'POST' ? (JSON.parse((await body(req)) || 'null') as Message) : undefined;
    if (msg?.params?._meta?.['io.modelcontextprotocol/protocolVersion']) return void res.writeHead(400).end();
    if (msg?.method === 'initialize')
      return void res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': session }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: msg.id,
          result: {
            protocolVersion: version,
            capabilities: { prompts: {} },
            serverInfo: { name: session, version: '1' },
          },
        }),
      );
    if (req.method === 'POST' && msg?.id === undefined) {
      if (msg) notified?.(msg, req);
      return void res.writeHead(202).end();
    }
    return handle(req, res, msg);
  });
  return { url: `${url}/mcp`, close: () => stop(http) };
}

/**
 * Settles on `version`; lists one prompt, `one` (after `slow.replyMs`); records the headers of every
 * DELETE, and with `slow.hangOnDelete` never answers one. Session `v-1`.
 */
export async function versionServer(
  version: string,
  slow: { hangOnDelete?: boolean; replyMs?: number } = {},
): Promise<Running & { deletes: IncomingHttpHeaders[] }> {
  const deletes: IncomingHttpHeaders[] = [];
  const server = await sessionServer('v-1', version, async (req, res, msg) => {
    if (req.method === 'DELETE') deletes.push(req.headers);
    if (req.method === 'DELETE' && slow.hangOnDelete) return;
    if (req.method === 'POST' && slow.replyMs) await new Promise((r) => setTimeout(r, slow.replyMs));
    if (req.method !== 'POST') return void res.writeHead(req.method === 'DELETE' ? 200 : 405).end();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: msg?.id, result: { prompts: [{ name: 'one' }] } }));
  });
  return { ...server, deletes };
}

/**
 * Pings: on its GET stream it sends a `ping` request and records the answer (with the session it
 * came in); its SSE reply to each POST first sends a request of its own under the client's id.
 * Session `p-1`.
 */
export async function pingingServer(pingsPerReply = 1, streamPings = 1): Promise<Running & { pongs: unknown[] }> {
  const pongs: unknown[] = [];
  const server = await sessionServer('p-1', '2025-11-25', (req, res, msg) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 1; i <= streamPings; i++)
        res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: `srv-${i}`, method: 'ping' })}\n\n`);
      return;
    }
    if (req.method !== 'POST') return void res.writeHead(200).end();
    if (msg?.method === undefined) {
      pongs.push({ ...msg, session: req.headers['mcp-session-id'] });
      return void res.writeHead(202).end();
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let i = 0; i < pingsPerReply; i++)
      res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: i === 0 ? msg.id : `p${i}`, method: 'ping' })}\n\n`);
    res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { prompts: [{ name: 'one' }] } })}\n\n`);
  });
  return { ...server, pongs };
}

/**
 * Polls: each SSE reply to a POST sends its priming event and a retry hint, then closes, and the
 * response comes on a GET that resumes after that event, each stream after `padding` bytes of
 * comment. Records the headers of every GET.
 * Session `poll-1`.
 */
export async function pollingServer(padding = 0): Promise<Running & { gets: IncomingHttpHeaders[] }> {
  // An SSE comment of `padding` bytes ahead of each stream's events.
  const pad = padding ? `:${' '.repeat(padding)}\n\n` : '';
  const gets: IncomingHttpHeaders[] = [];
  const pending = new Map<string, unknown>();
  const server = await sessionServer('poll-1', '2025-11-25', (req, res, msg) => {
    if (req.method === 'GET') {
      gets.push(req.headers);
      const reply = pending.get(String(req.headers['last-event-id']));
      if (reply === undefined) return void res.writeHead(405).end();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return void res.end(`${pad}id: done\ndata: ${JSON.stringify(reply)}\n\n`);
    }
    if (req.method !== 'POST') return void res.writeHead(200).end();
    const eventId = `prime-${String(msg?.id)}`;
    pending.set(eventId, { jsonrpc: '2.0', id: msg?.id, result: { prompts: [{ name: 'polled' }] } });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`${pad}id: ${eventId}\ndata:\n\nretry: 30\n\n`);
  });
  return { ...server, gets };
}

/**
 * Never answers `prompts/get` (the request is held open); records each `notifications/cancelled`
 * with the session it came in. Session `h-1`.
 */
export async function hangingServer(): Promise<Running & { cancelled: unknown[] }> {
  const cancelled: unknown[] = [];
  const server = await sessionServer(
    'h-1',
    '2025-11-25',
    (req, res, msg) => {
      if (req.method === 'POST' && msg?.method === 'prompts/get') return; // held open, never answered
      res.writeHead(req.method === 'DELETE' ? 200 : 405).end();
    },
    (msg, req) => {
      if (msg.method === 'notifications/cancelled')
        cancelled.push({ params: (msg as { params?: unknown }).params, session: req.headers['mcp-session-id'] });
    },
  );
  return { ...server, cancelled };
}
