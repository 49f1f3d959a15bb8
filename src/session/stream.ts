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
 * The stream's socket goes to the session's registry shard, which sends every
 * catalog change (registry-shard.ts); no session object is asked or written
 * to open it. An event id is `<key>.<generation>` (stream-key.ts), so the
 * position is the id itself: on a reconnect the Worker resumes with the last
 * generation it delivered, the shard replays what came after from its event
 * log, and the client's stream carries on. Nothing is written per delivery.
 */
import { bridge } from './bridge.js';
import { watchedBy, type StreamHooks } from './watch.js';
import { upgrade } from './sockets.js';
import { changedMethods, type Announced } from './changes.js';
import { eventId, STREAM_SESSION_HEADER, STREAM_SINCE_HEADER, type CatalogEvent, type ShardFrame } from './events.js';
import { shardStub } from './fanout.js';
import { sseEvent, sseRetry } from './sse.js';
import { limitHeaders, type StreamLimits } from './stream-limits.js';

export interface StreamOptions extends StreamHooks {
  env: Env;
  sessionId: string;
  /** The registry shard holding the session's stream (fanout.ts shardIndex). */
  shard: number;
  /** The stream's key (stream-key.ts): its event ids are `<key>.<generation>`. */
  key: string;
  /** Resuming (Last-Event-ID): the generation the client last received. */
  since: number | undefined;
  /**
   * A new stream: the catalog generation the client's list may be of (what this isolate serves).
   * The stream starts no later than it, so a change the shard announced before the stream opened,
   * but after that list, is still announced on it.
   */
  listedAt?: number;
  /** Send the priming event (id + empty data): only for clients at 2025-11-25 or later. */
  priming: boolean;
  keepaliveMs: number;
  retryMs: number;
  /** What the shard admits (503 when full, 429 past the client's share): stream-limits.ts. */
  limits: StreamLimits;
  /** Asked at each keepalive; false ends the stream (the session or the credential ended). */
  stillValid?: () => boolean | Promise<boolean>;
  /** Besides prompts: tools (TOOLS_MIRROR on) and resources (SKILLS on) list changes. */
  tools: boolean;
  resources: boolean;
}

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

/** The client's SSE response; null when the shard refuses the session (it was ended since it was checked). */
export async function openLegacyStream(opts: StreamOptions): Promise<Response | null> {
  /** The newest generation this stream delivered (or started at): older events are not news. */
  let position = opts.since;
  let opened = false;
  const announced: Announced = { prompts: true, tools: opts.tools, resources: opts.resources };
  // A fresh stub per connect: a stub to an object that was reset stays broken. After a drop the
  // shard is told the last generation delivered, and replays what came after.
  const connect = () => {
    const since = position ?? opts.listedAt;
    return upgrade(shardStub(opts.env, opts.shard), {
      [STREAM_SESSION_HEADER]: opts.sessionId,
      ...limitHeaders(opts.limits),
      ...(since !== undefined && { [STREAM_SINCE_HEADER]: String(since) }),
    });
  };
  const first = await connect();
  if (first === 404) return null;
  if (typeof first === 'number') throw new Error(`registry shard answered ${first} to a stream upgrade`);
  return bridge<ShardFrame>(
    first,
    {
      connect,
      keepaliveMs: opts.keepaliveMs,
      ...(opts.stillValid && { stillValid: opts.stillValid }),
      ...watchedBy(opts, () => position),
      before: (frame) => (frame.t === 'event' ? opts.catchUp?.(frame.event.generation) : undefined),
      onFrame(frame, client) {
        if (frame.t === 'open') {
          // Resuming past what the shard ever announced: no such id was issued here (made up, or from
          // a namespace whose generations started over), and kept it would silence every change up to
          // it. The stream goes on from the shard's position instead.
          if (position !== undefined && frame.generation > 0 && position > frame.generation)
            position = frame.generation;
          // A shard that never announced a change says what the feed had published (registry-shard.ts),
          // or 0 when the feed did not answer, which is no position: the stream then stands at its list's,
          // or a resume or lag check from 0 would be told that list again.
          position ??=
            frame.generation > 0 ? Math.min(opts.listedAt ?? frame.generation, frame.generation) : (opts.listedAt ?? 0);
          if (opts.priming && !opened) client.write(sseEvent({ id: eventId(opts.key, position), data: '' }));
          opened = true;
        } else if (frame.t === 'event') {
          const g = frame.event.generation;
          if (position !== undefined && g <= position) return;
          position = g;
          const bytes = framesOf(eventId(opts.key, g), frame.event, announced);
          if (bytes.length) client.write(bytes);
        } else {
          client.end();
        }
      },
    },
    [sseRetry(opts.retryMs)],
  );
}
