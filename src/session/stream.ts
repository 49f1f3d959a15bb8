/**
 * The legacy standalone stream (GET /mcp): the `retry` hint, the priming
 * event (2025-11-25+ clients only), and each catalog event framed as a
 * JSON-RPC notification with its event id. Transport is the shared
 * socket bridge (bridge.ts).
 *
 * On a reconnect the Worker resumes with the last id it delivered and the
 * session object replays from storage, so the client's stream carries on.
 */
import { bridge, upgrade } from './bridge.js';
import type { StreamFrame } from './events.js';
import type { SessionObject } from './session-object.js';
import { sseEvent, sseRetry } from './sse.js';

export interface StreamOptions {
  /** A fresh stub per connection attempt: a stub to an object that was reset stays broken. */
  stub: () => DurableObjectStub<SessionObject>;
  lastEventId: string | undefined;
  /** Send the priming event (id + empty data): only for clients at 2025-11-25 or later. */
  priming: boolean;
  keepaliveMs: number;
  retryMs: number;
  /** Asked at each keepalive; false ends the stream (the credential expired or was revoked). */
  stillValid?: () => boolean | Promise<boolean>;
}

export type OpenResult = { ok: true; response: Response } | { ok: false; status: 400 | 404 };

const LIST_CHANGED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed' });

export async function openLegacyStream(opts: StreamOptions): Promise<OpenResult> {
  let lastId = opts.lastEventId;
  let opened = false;
  // First connect: the client's Last-Event-ID, if any. After a drop: the last id this Worker delivered.
  const connect = () => upgrade(opts.stub(), lastId !== undefined ? { 'last-event-id': lastId } : {});
  const first = await connect();
  if (typeof first === 'number') {
    if (first === 400 || first === 404) return { ok: false, status: first };
    throw new Error(`session object answered ${first} to a stream upgrade`);
  }
  const response = bridge<StreamFrame>(
    first,
    {
      connect,
      keepaliveMs: opts.keepaliveMs,
      ...(opts.stillValid && { stillValid: opts.stillValid }),
      onFrame(frame, client) {
        if (frame.t === 'open') {
          lastId ??= frame.id;
          if (opts.priming && !opened) client.write(sseEvent({ id: frame.id, data: '' }));
          opened = true;
        } else if (frame.t === 'event') {
          lastId = frame.id;
          client.write(sseEvent({ id: frame.id, event: 'message', data: LIST_CHANGED }));
        } else {
          client.end();
        }
      },
    },
    [sseRetry(opts.retryMs)],
  );
  return { ok: true, response };
}
