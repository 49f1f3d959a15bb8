/**
 * The Worker's half of a legacy standalone stream (GET /mcp).
 *
 * The Worker holds the client's SSE response and a WebSocket to the session
 * object. The object hibernates between events, so an idle stream costs a
 * Worker waiting on I/O and nothing else. The Worker writes the `retry`
 * hint, the priming event (2025-11-25+ clients only), keepalive comments,
 * and frames each event as a JSON-RPC notification with its event id.
 *
 * If the object is restarted (deploy, eviction of a non-hibernated object)
 * the WebSocket drops; the Worker reconnects with the last id it delivered,
 * and the object replays from storage, so the client's stream carries on.
 */
import type { StreamFrame } from './events.js';
import type { SessionObject } from './object.js';
import { SSE_HEADERS, sseComment, sseEvent, sseRetry } from './sse.js';

export interface StreamOptions {
  /** A fresh stub per connection attempt: a stub to an object that was reset stays broken. */
  stub: () => DurableObjectStub<SessionObject>;
  lastEventId: string | undefined;
  /** Send the priming event (id + empty data): only for clients at 2025-11-25 or later. */
  priming: boolean;
  keepaliveMs: number;
  retryMs: number;
}

export type OpenResult = { ok: true; response: Response } | { ok: false; status: 400 | 404 };

const MAX_RECONNECTS = 5;

async function connect(stub: () => DurableObjectStub<SessionObject>, lastEventId: string | undefined): Promise<WebSocket | 400 | 404> {
  const headers: Record<string, string> = { upgrade: 'websocket' };
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  const res = await stub().fetch('https://session.internal/stream', { headers });
  if (res.status === 400 || res.status === 404) return res.status;
  if (!res.webSocket) throw new Error(`session object answered ${res.status} to a stream upgrade`);
  res.webSocket.accept();
  return res.webSocket;
}

function listChanged(): string {
  return JSON.stringify({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed' });
}

export async function openLegacyStream(opts: StreamOptions): Promise<OpenResult> {
  const first = await connect(opts.stub, opts.lastEventId);
  if (typeof first === 'number') return { ok: false, status: first };

  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  let lastId = opts.lastEventId;
  let closed = false;
  let socket: WebSocket = first;
  let reconnects = 0;

  const shutdown = () => {
    if (closed) return;
    closed = true;
    clearInterval(keepalive);
    try {
      socket.close(1000, 'stream closed');
    } catch {
      // Already closed.
    }
    writer.close().catch(() => {});
  };
  const write = (bytes: Uint8Array) => {
    if (!closed) writer.write(bytes).catch(shutdown);
  };

  const attach = (ws: WebSocket) => {
    socket = ws;
    ws.addEventListener('message', (m) => {
      const frame = JSON.parse(typeof m.data === 'string' ? m.data : new TextDecoder().decode(m.data)) as StreamFrame;
      if (frame.t === 'open') {
        lastId ??= frame.id;
        if (opts.priming && reconnects === 0) write(sseEvent({ id: frame.id, data: '' }));
      } else if (frame.t === 'event') {
        lastId = frame.id;
        write(sseEvent({ id: frame.id, event: 'message', data: listChanged() }));
      } else {
        shutdown();
      }
    });
    ws.addEventListener('close', () => {
      if (closed) return;
      if (++reconnects > MAX_RECONNECTS) return shutdown();
      // The object went away without ending the stream: resume from what the client has.
      connect(opts.stub, lastId)
        .then((next) => (typeof next === 'number' ? shutdown() : attach(next)))
        .catch(shutdown);
    });
  };

  write(sseRetry(opts.retryMs));
  const keepalive = setInterval(() => write(sseComment('keepalive')), opts.keepaliveMs);
  attach(first);
  return { ok: true, response: new Response(readable, { status: 200, headers: SSE_HEADERS }) };
}
