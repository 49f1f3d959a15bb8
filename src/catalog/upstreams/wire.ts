/**
 * The wire level of the upstream client: header encoding, the deadline of
 * one upstream operation, and reading one JSON-RPC reply (plain JSON or an
 * SSE stream) within that deadline and the byte cap. No state: the client
 * (client.ts, handshake.ts, http.ts) own connections and eras.
 */
import { bounded } from '../../lib/bounded.js';
import { MAX_REPLY_BYTES, readCapped } from './body.js';
import { UpstreamError } from './errors.js';
import { readSse, type UpstreamEvent } from './sse-reader.js';

export { UpstreamError, type UpstreamErrorKind, type UpstreamFault } from './errors.js';

export type Json = Record<string, unknown>;

/**
 * One deadline for a whole upstream operation (handshake, every page, every
 * retry): each request and reply read gets what is left of it, so a slow
 * handshake and a hanging list end at the timeout, not at their sum.
 */
export interface Deadline {
  readonly ms: number;
  readonly at: number;
  /** Aborts at the deadline, or when `cancel` does. */
  readonly signal: AbortSignal;
  /** Aborts when the caller gives the operation up before its deadline (a downstream cancel). */
  readonly cancel?: AbortSignal;
}

export function deadline(ms: number, cancel?: AbortSignal): Deadline {
  const timeout = AbortSignal.timeout(ms);
  const at = Date.now() + ms;
  return cancel ? { ms, at, signal: AbortSignal.any([timeout, cancel]), cancel } : { ms, at, signal: timeout };
}

export const remaining = (d: Deadline): number => Math.max(0, d.at - Date.now());

/**
 * `d` without its caller's cancel, for work other callers share (a connection's handshake). Its
 * signal is made on first use: a call on a warm connection never reads it, and pays for no timer.
 */
export function uncancellable(d: Deadline): Deadline {
  if (!d.cancel) return d;
  let signal: AbortSignal | undefined;
  return {
    ms: d.ms,
    at: d.at,
    get signal() {
      return (signal ??= AbortSignal.timeout(remaining(d)));
    },
  };
}

export const cancelledError = (): UpstreamError =>
  new UpstreamError('cancelled', 'the request was cancelled by its client');

/** The error an operation ends with: its caller's cancel, however the abort surfaced where it was noticed. */
export const settled = (e: unknown, d: Deadline): unknown => (d.cancel?.aborted ? cancelledError() : e);

/** Rethrows `e` as `settled` names it. */
export function rethrow(e: unknown, d: Deadline): never {
  throw settled(e, d);
}

/** `p`, or a cancellation as soon as `cancel` aborts. */
export function unlessCancelled<T>(p: Promise<T>, cancel: AbortSignal | undefined): Promise<T> {
  if (!cancel) return p;
  if (cancel.aborted) return Promise.reject(cancelledError());
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(cancelledError());
    cancel.addEventListener('abort', stop, { once: true });
    p.then(resolve, reject).finally(() => cancel.removeEventListener('abort', stop));
  });
}

/** Header-safe value, or the spec's base64 sentinel. */
export function headerValue(v: string): string {
  return /^[\x20-\x7e]*$/.test(v) && v.trim() === v
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

/** `p`, or a timeout error when the deadline passes first (a cancellation when its caller cancels first). */
export function withTimeout<T>(p: Promise<T>, d: Deadline | number, what: string): Promise<T> {
  const ms = typeof d === 'number' ? d : remaining(d);
  const total = typeof d === 'number' ? d : d.ms;
  const timed = bounded(p, ms, () => new UpstreamError('timeout', `upstream timed out ${what} (${total} ms)`));
  return typeof d === 'number' ? timed : unlessCancelled(timed, d.cancel);
}
