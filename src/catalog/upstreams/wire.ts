/**
 * The wire level of the upstream client: header encoding, and reading one
 * JSON-RPC reply (plain JSON or an SSE stream) within the operation's
 * deadline (deadline.ts) and the byte cap. No state: the client (client.ts,
 * handshake.ts, http.ts) own connections and eras.
 */
import { MAX_REPLY_BYTES, readCapped } from './body.js';
import { remaining, withTimeout, type Deadline } from './deadline.js';
import { UpstreamError } from './errors.js';
import { readSse, type UpstreamEvent } from './sse-reader.js';

export { UpstreamError, type UpstreamErrorKind, type UpstreamFault } from './errors.js';

export type Json = Record<string, unknown>;

/**
 * Header-safe value, or the spec's base64 sentinel: for what is not plain ASCII, and for a plain value
 * shaped like a sentinel (`=?base64?…?=`), which the server would otherwise decode as one.
 */
export function headerValue(v: string): string {
  const sentinelShaped = v.startsWith('=?base64?') && v.endsWith('?=');
  return /^[\x20-\x7e]*$/.test(v) && v.trim() === v && !sentinelShaped
    ? v
    : `=?base64?${btoa(String.fromCharCode(...new TextEncoder().encode(v)))}?=`;
}

/** What a session-era reply can do in its session. */
export interface ReplySession {
  /**
   * Opens the stream again after the last event id it delivered (GET with Last-Event-ID), for an
   * upstream that closes an SSE reply before its response (2025-11-25 "polling").
   */
  resume(lastEventId: string): Promise<Response>;
  /** Answers the upstream's `ping` (either side may ping, and must be answered promptly). */
  pong(id: unknown): void;
}

/** Reconnects to one reply, at most: each must deliver something, or the reply fails as closed. */
const MAX_RESUMES = 20;

/** The result for `id`, from a JSON reply or from an SSE stream (priming and other messages skipped). */
export async function reply(res: Response, id: number, d: Deadline, session?: ReplySession): Promise<Json> {
  try {
    return await readReply(res, id, d, session);
  } catch (e) {
    if (e instanceof UpstreamError) throw e;
    const name = (e as Error)?.name;
    if (name === 'TimeoutError' || name === 'AbortError')
      throw new UpstreamError('timeout', `upstream reply did not complete within ${d.ms} ms`);
    throw new UpstreamError(
      'protocol',
      `upstream closed the reply mid-stream (${String(e)})`,
      undefined,
      undefined,
      'closed',
    );
  } finally {
    // A reply abandoned half-read (timeout, cap, wrong id) frees its connection now.
    res.body?.cancel().catch(() => undefined);
  }
}

const closedEarly = () =>
  new UpstreamError('protocol', 'SSE reply ended before the response arrived', undefined, undefined, 'closed');

async function readReply(res: Response, id: number, d: Deadline, session: ReplySession | undefined): Promise<Json> {
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('text/event-stream') && res.body) {
    const find = async () => {
      let body = res.body as ReadableStream<Uint8Array>;
      let lastId: string | undefined;
      let retryMs = 0;
      // One cap for the whole reply, however many streams it comes over.
      const spent = { bytes: 0 };
      for (let resumes = 0; ; resumes++) {
        let delivered = false;
        const events = readSse(body, { maxTotal: MAX_REPLY_BYTES, spent, onRetry: (ms) => (retryMs = ms) });
        for await (const ev of events) {
          if (ev.id !== undefined && ev.id !== lastId) [lastId, delivered] = [ev.id, true];
          if (!ev.data) continue;
          const msg = parseJson(ev);
          // A request of the upstream's own may carry the same id as ours: only a response is our reply.
          if (typeof msg.method === 'string') {
            if (msg.method === 'ping' && msg.id !== undefined) session?.pong(msg.id);
          } else if (msg.id === id) return msg;
        }
        // Closed before the response: the upstream may be polling us (it named an event to resume from).
        if (!session || lastId === undefined || resumes >= MAX_RESUMES || (resumes > 0 && !delivered))
          throw closedEarly();
        await new Promise((r) => setTimeout(r, Math.min(retryMs, remaining(d))));
        const next = await session.resume(lastId);
        if (!next.ok || !(next.headers.get('content-type') ?? '').includes('text/event-stream') || !next.body) {
          await next.body?.cancel();
          throw closedEarly();
        }
        body = next.body as ReadableStream<Uint8Array>;
      }
    };
    return unwrap(await withTimeout(find(), d, 'reading the SSE reply'));
  }
  const text = await withTimeout(readCapped(res), d, 'reading the reply');
  let msg: Json;
  try {
    msg = JSON.parse(text) as Json;
  } catch {
    throw new UpstreamError('protocol', 'upstream sent a reply that is not JSON', undefined, undefined, 'invalid_json');
  }
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg))
    throw new UpstreamError('protocol', 'upstream reply is not a JSON-RPC object');
  // Another request's answer (a replaying proxy or cache) is not this one's, as on the SSE path; an
  // error that could not read our id may leave it out or null.
  if (msg.id !== id && !(msg.error !== undefined && (msg.id === undefined || msg.id === null)))
    throw new UpstreamError('protocol', `upstream answered request ${JSON.stringify(msg.id)?.slice(0, 40)}, not ${id}`);
  return unwrap(msg);
}

export function parseJson(ev: UpstreamEvent): Json {
  let msg: unknown;
  try {
    msg = JSON.parse(ev.data);
  } catch {
    throw new UpstreamError(
      'protocol',
      'upstream sent an SSE event that is not JSON',
      undefined,
      undefined,
      'invalid_json',
    );
  }
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg))
    throw new UpstreamError('protocol', 'upstream sent an SSE event that is not a JSON-RPC object');
  return msg as Json;
}

export function unwrap(msg: Json): Json {
  const err = msg.error as { code?: number; message?: string; data?: unknown } | undefined;
  if (err)
    throw new UpstreamError('rpc', String(err.message ?? 'upstream error'), Number(err.code ?? -32603), err.data);
  if (typeof msg.result !== 'object' || msg.result === null)
    throw new UpstreamError('protocol', 'upstream reply has neither result nor error');
  return msg.result as Json;
}
