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
 * The stream's socket goes to a registry shard, which sends every catalog
 * change (registry-shard.ts); the session's object only says which shard and
 * which key, at each connect. An event id is `<key>.<generation>`, so the
 * position is the id itself: on a reconnect the Worker resumes with the last
 * id it delivered, the shard replays what came after from its event log, and
 * the client's stream carries on. Nothing is written per delivery.
 */
import { bridge, upgrade } from './bridge.js';
import { changedMethods, type Announced } from './changes.js';
import { eventId, STREAM_SESSION_HEADER, STREAM_SINCE_HEADER, type CatalogEvent, type ShardFrame } from './events.js';
import { shardStub } from './fanout.js';
import type { StreamPlace } from './session-object.js';
import { sseEvent, sseRetry } from './sse.js';

export interface StreamOptions {
  env: Env;
  sessionId: string;
  /**
   * Where the stream attaches, asked of the session's object at every connect (a fresh stub each
   * time: a stub to an object that was reset stays broken), with the last id delivered when
   * resuming; a number ends the stream (the session ended, or its stream was replaced).
   */
  place: (lastEventId: string | undefined) => Promise<StreamPlace | 400 | 404>;
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
  let key = '';
  /** The newest generation this stream delivered (or started at): older events are not news. */
  let position: number | undefined;
  let opened = false;
  const announced: Announced = { prompts: true, tools: opts.tools, resources: opts.resources };
  // First connect: the client's Last-Event-ID, if any. After a drop: the last id this Worker delivered.
  const connect = async (): Promise<WebSocket | number> => {
    const place = await opts.place(lastId);
    if (typeof place === 'number') return place;
    key = place.key;
    if (place.since !== undefined) position = place.since;
    return upgrade(shardStub(opts.env, place.shard), {
      [STREAM_SESSION_HEADER]: opts.sessionId,
      ...(position !== undefined && { [STREAM_SINCE_HEADER]: String(position) }),
    });
  };
  const first = await connect();
  if (typeof first === 'number') {
    if (first === 400 || first === 404) return { ok: false, status: first };
    throw new Error(`registry shard answered ${first} to a stream upgrade`);
  }
  const response = bridge<ShardFrame>(
    first,
    {
      connect,
      keepaliveMs: opts.keepaliveMs,
      ...(opts.stillValid && { stillValid: opts.stillValid }),
      onFrame(frame, client) {
        if (frame.t === 'open') {
          position ??= frame.generation;
          lastId = eventId(key, position);
          if (opts.priming && !opened) client.write(sseEvent({ id: lastId, data: '' }));
          opened = true;
        } else if (frame.t === 'event') {
          const g = frame.event.generation;
          if (position !== undefined && g <= position) return;
          position = g;
          lastId = eventId(key, g);
          const bytes = framesOf(lastId, frame.event, announced);
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
