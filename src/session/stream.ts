/**
 * The legacy standalone stream (GET /mcp): the `retry` hint, the priming
 * event (2025-11-25+ clients only), and each catalog event framed as a
 * JSON-RPC notification with its event id. Transport is the shared
 * socket bridge (bridge.ts).
 *
 * One event may mean several notifications (prompts, the tools mirror, skill resources:
 * changes.ts). They are written together, and only the last carries the event's id, so ids stay
 * unique and a resume with Last-Event-ID replays a whole event or none of it.
 *
 * On a reconnect the Worker resumes with the last id it delivered and the
 * session object replays from storage, so the client's stream carries on.
 */
import { bridge, upgrade } from './bridge.js';
import { changedMethods, type Announced } from './changes.js';
import type { CatalogEvent, StreamFrame } from './events.js';
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
  /** Besides prompts: tools (TOOLS_MIRROR on) and resources (SKILLS on) list changes. */
  tools: boolean;
  resources: boolean;
}

export type OpenResult = { ok: true; response: Response } | { ok: false; status: 400 | 404 };

const notifications = new Map<string, string>();
const notification = (method: string): string => {
  let json = notifications.get(method);
  if (!json) notifications.set(method, (json = JSON.stringify({ jsonrpc: '2.0', method })));
  return json;
};

/** An event's SSE frames as one write; empty when it means nothing this stream announces. */
function framesOf(id: string, event: CatalogEvent, announced: Announced): Uint8Array {
  const methods = changedMethods(event, announced);
  const frames = methods.map((m, i) =>
    sseEvent(
      i === methods.length - 1
        ? { id, event: 'message', data: notification(m) }
        : { event: 'message', data: notification(m) },
    ),
  );
  if (frames.length === 1) return frames[0]!;
  const out = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
  let at = 0;
  for (const f of frames) {
    out.set(f, at);
    at += f.length;
  }
  return out;
}

export async function openLegacyStream(opts: StreamOptions): Promise<OpenResult> {
  let lastId = opts.lastEventId;
  let opened = false;
  const announced: Announced = { prompts: true, tools: opts.tools, resources: opts.resources };
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
          const bytes = framesOf(frame.id, frame.event, announced);
          if (bytes.length) client.write(bytes);
        } else {
          client.end();
        }
      },
    },
    [sseRetry(opts.retryMs)],
  );
  return { ok: true, response };
}
