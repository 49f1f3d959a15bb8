/**
 * A listen's stream (listen.ts, behind client.ts `listen`) in the upstream's era: the request that
 * opens it, asking for skills changes too when the upstream declares the Skills extension, and the
 * reading of it.
 */
import type { Connection, UpstreamHttp } from './http.js';
import { pong } from './session-calls.js';
import { readSse } from './sse-reader.js';
import { parseJson } from './wire.js';

/** The stream a listen reads: a modern `subscriptions/listen` POST, or the legacy session's GET. */
export function openListen(
  http: UpstreamHttp,
  url: URL,
  conn: Connection,
  skills: boolean,
  signal: AbortSignal,
): Promise<Response> {
  if (conn.era !== 'modern')
    return http.send('GET', url, undefined, { ...http.legacyHeaders(conn), accept: 'text/event-stream' }, signal);
  const notifications = { promptsListChanged: true, ...(skills && { resourcesListChanged: true }) };
  return http.send(
    'POST',
    url,
    http.envelope('subscriptions/listen', { notifications }, conn),
    http.modernHeaders('subscriptions/listen', {}),
    signal,
  );
}

/**
 * A change stream answers at most one ping per this many ms: upstreams ping every half minute or
 * so, and a stream flooded with pings must not become a flood of POSTs, each a request of its own
 * (a reply's pings are bounded the same way: session-calls.ts MAX_PONGS_PER_REPLY).
 */
export const PONG_INTERVAL_MS = 5_000;

/** What each kind a modern listen asks for (openListen) is announced as. */
const ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';
const KIND_METHODS = {
  promptsListChanged: 'notifications/prompts/list_changed',
  resourcesListChanged: 'notifications/resources/list_changed',
} as const;

/**
 * Whether a modern listen's acknowledgement honors a kind this listen follows. One that honors none
 * (its `notifications` the honored subset, the others left out) would hold the stream, and the
 * upstream's object, open for notifications that never come. An acknowledgement without the field
 * is taken at its word that the listen stands.
 */
function honorsAny(params: unknown, isChange: (method: unknown) => boolean): boolean {
  const honored = (params as { notifications?: unknown } | undefined)?.notifications;
  if (typeof honored !== 'object' || honored === null) return true;
  return Object.entries(KIND_METHODS).some(
    ([kind, method]) => (honored as Record<string, unknown>)[kind] === true && isChange(method),
  );
}

/** A listen the upstream does not know (-32601): asking again would be refused again. */
const isUnknownMethod = (msg: { error?: unknown }) => (msg.error as { code?: unknown } | undefined)?.code === -32601;

/**
 * Follows an opened listen's stream until it ends or drops, calling `onChange` for each change it
 * announces and answering a legacy session's pings. undefined once it was followed; when the
 * upstream answered with no stream, refused the method (-32601) on it, answered a modern listen
 * with an error or its final result before its acknowledgement, or acknowledged none of the kinds
 * it follows, how the listen ends: 'ended' for a legacy session it forgot (404), else 'unsupported'.
 */
export async function followListen(
  http: UpstreamHttp,
  conn: Connection,
  res: Response,
  isChange: (method: unknown) => boolean,
  onChange: () => void,
  onOpen?: () => void,
): Promise<'unsupported' | 'ended' | undefined> {
  if (!res.ok || !(res.headers.get('content-type') ?? '').includes('text/event-stream') || !res.body) {
    await res.body?.cancel();
    // Only a legacy 404 is a forgotten session; a modern upstream has none, so its 404 (a -32601) is no listen.
    return res.status === 404 && conn.era === 'legacy' ? 'ended' : 'unsupported';
  }
  onOpen?.();
  let ponged = -Infinity;
  /** Whether the stream carried a notification yet (a modern listen's first is its acknowledgement). */
  let heard = false;
  try {
    for await (const ev of readSse(res.body as ReadableStream<Uint8Array>)) {
      if (!ev.data) continue;
      const msg = parseJson(ev);
      // An error or a final result in place of the acknowledgement is a refusal of the listen: asked
      // again, it is refused again, and re-listing would only cycle the backoff (follow.ts).
      if (('error' in msg || 'result' in msg) && !heard && conn.era === 'modern') return 'unsupported';
      if (msg.method === ACKNOWLEDGED && !heard && conn.era === 'modern' && !honorsAny(msg.params, isChange))
        return 'unsupported';
      if (msg.method !== undefined) heard = true;
      if (isChange(msg.method)) onChange();
      else if (msg.method === 'ping' && msg.id !== undefined && conn.era === 'legacy') {
        if (Date.now() - ponged >= PONG_INTERVAL_MS) {
          ponged = Date.now();
          pong(http, conn, msg.id);
        }
      } else if (isUnknownMethod(msg)) return 'unsupported';
      else if ('result' in msg || 'error' in msg) break; // a modern listen ended gracefully
    }
  } catch {
    // A dropped stream is an end like any other: the caller reconnects.
  }
  return undefined;
}
