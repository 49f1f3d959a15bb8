/**
 * What a session-era upstream session (2025-11-25 back to 2025-03-26) needs besides its requests,
 * all sent in the session with its negotiated revision: a reply stream resumed after its last
 * event (polling), the upstream's pings answered, a request no longer waited for cancelled, and
 * the session ended. All but the resume are best effort: nothing waits on them, and a session that
 * is not ended expires upstream on its own.
 */
import type { ReplySession } from './wire.js';

/** What these calls need of the HTTP side (http.ts UpstreamHttp), without importing it. */
export interface SessionHttp {
  readonly opts: { readonly url: URL };
  send(
    method: string,
    url: URL,
    body?: unknown,
    extra?: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<Response>;
  legacyHeaders(conn: SessionConn): Record<string, string>;
}

export interface SessionConn {
  sessionId?: string;
  version?: string;
  /** HTTP+SSE (2024-11-05): messages go to the link's endpoint, which names the session itself. */
  sse?: { readonly endpoint: URL };
}

/** Drops the answer; a failure is nobody's business (see the header). */
const drain = (p: Promise<Response>): Promise<void> => p.then((res) => res.body?.cancel()).catch(() => undefined);

/** Sends without waiting. */
const fire = (p: Promise<Response>): void => void drain(p);

/**
 * The pings answered in one reply: a reply may hold tens of thousands within its byte cap, and each
 * answer is a request of its own (the invocation's connections and subrequests).
 */
export const MAX_PONGS_PER_REPLY = 3;

/** What a reply of `conn` can do in its session (wire.ts), within the call's `signal`. */
export function replySession(http: SessionHttp, conn: SessionConn, signal: AbortSignal): ReplySession {
  let pongs = 0;
  return {
    resume: (lastEventId) =>
      http.send(
        'GET',
        http.opts.url,
        undefined,
        { ...http.legacyHeaders(conn), accept: 'text/event-stream', 'last-event-id': lastEventId },
        signal,
      ),
    pong: (id) => void (pongs++ < MAX_PONGS_PER_REPLY && pong(http, conn, id)),
  };
}

/** Answers the upstream's `ping` in the session it came in. */
export function pong(http: SessionHttp, conn: SessionConn, id: unknown): void {
  fire(http.send('POST', http.opts.url, { jsonrpc: '2.0', id, result: {} }, http.legacyHeaders(conn)));
}

/**
 * Tells the upstream that request `id` is no longer waited for (its timeout passed, or its client
 * cancelled it), so it may stop: in the session, or on HTTP+SSE at the link's endpoint.
 */
export function cancel(http: SessionHttp, conn: SessionConn, id: number, reason: string): void {
  const note = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } };
  fire(
    conn.sse
      ? http.send('POST', conn.sse.endpoint, note)
      : http.send('POST', http.opts.url, note, http.legacyHeaders(conn)),
  );
}

/** Ends the session (DELETE). */
export function endSession(http: SessionHttp, conn: SessionConn): Promise<void> {
  return drain(http.send('DELETE', http.opts.url, undefined, http.legacyHeaders(conn)));
}
