/**
 * A downstream client's cancel of a call the gateway forwards upstream (docs/upstreams.md,
 * "Cancellation"). A 2026-07-28 client cancels by closing its request (the request's signal, with
 * the `enable_request_signal` flag); a session-era client by `notifications/cancelled` naming its
 * request, which reaches a call of the same session and principal running in this isolate (a
 * session's requests are not pinned to one isolate: a cancel that lands on another is not seen, the
 * bound docs/upstreams.md states, rather than a Durable Object write per call). Either way the
 * upstream object aborts the upstream request (upstream-object.ts `cancel`), and the cancelled
 * request gets no JSON-RPC response.
 */
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { ForwardMethod, ForwardResult, ForwardTarget } from '../catalog/upstreams/forward.js';
import { upstreamStub } from '../catalog/stubs.js';
import { principalIdOf } from '../lib/caller.js';
import { SSE_HEADERS } from '../session/sse.js';
import { BoundedMap } from '../lib/memo.js';
import type { RequestScope } from '../lib/scope.js';
import type { CallContext } from './context.js';
import { isId, jsonResponse, type Message } from './envelope.js';

/** Thrown by a call its client cancelled: whoever answers the request sends no reply for it. */
export class CallCancelled extends Error {}

/**
 * This isolate's session-era calls a `notifications/cancelled` can reach, by session, principal and
 * request id: which upstream runs each, under which key. The cancel is sent from the request that
 * carries the notification, with its own stub (a request may not do I/O for another). Bounded: a
 * request the runtime ends mid-call (its client gone) never runs its `finally`, so its entry stays
 * until pushed out, or until a later call under the same id takes the key.
 */
const running = new BoundedMap<string, { upstream: string; call: string }>(10_000);

const keyOf = (sessionId: string, principal: string, id: RequestId): string =>
  `${sessionId}\n${principal}\n${typeof id}:${id}`;

/** A session-era notification: `notifications/cancelled` cancels its session's call; anything else, nothing. */
export function noteCancel(t: RequestScope, msg: Message): void {
  if (msg.kind !== 'notification' || msg.method !== 'notifications/cancelled' || !t.sessionId) return;
  const id = msg.params?.requestId;
  // An unknown, finished or malformed id, or another session's or principal's call: ignored, as the spec asks.
  if (!isId(id)) return;
  const key = keyOf(t.sessionId, principalIdOf(t.principal), id);
  const found = running.get(key);
  if (!found) return;
  running.delete(key);
  t.waitUntil(cancelCall(t.env, found.upstream, found.call));
}

const cancelCall = (env: Env, upstream: string, call: string): Promise<unknown> =>
  upstreamStub(env, upstream)
    .cancel(call)
    .catch(() => undefined);

/**
 * Forwards one call to its upstream's object, cancellable by its client under a random key of this
 * call's: a modern client by closing its request (the cancel then goes from this request, in the
 * background, as the client is gone), a session-era client by naming the call in a notification
 * (`noteCancel`). Throws CallCancelled when the object reports the call cancelled.
 */
export async function forwardUpstream(
  ctx: CallContext,
  upstream: string,
  method: ForwardMethod,
  params: Record<string, unknown>,
  target: ForwardTarget,
): Promise<ForwardResult> {
  const stub = upstreamStub(ctx.env, upstream);
  const call = crypto.randomUUID();
  // A closed connection is a cancel only in the modern era; a session-era client says so in a message.
  const gone = ctx.era === 'modern' ? ctx.signal : undefined;
  const key =
    ctx.era === 'legacy' && ctx.sessionId && ctx.requestId !== undefined
      ? keyOf(ctx.sessionId, principalIdOf(ctx.principal), ctx.requestId)
      : undefined;
  if (gone?.aborted) throw new CallCancelled();
  // The latest call under an id holds it: an entry left by a request the runtime ended holds nothing.
  if (key !== undefined) running.set(key, { upstream, call });
  // On this request's own stub: calls on one stub arrive in order, so the cancel finds the forward.
  const cancel = () => ctx.waitUntil(stub.cancel(call).catch(() => undefined));
  gone?.addEventListener('abort', cancel, { once: true });
  try {
    const r = await stub.forward(upstream, method, params, target, gone || key ? call : undefined);
    if (!r.ok && r.kind === 'cancelled') throw new CallCancelled();
    return r;
  } finally {
    gone?.removeEventListener('abort', cancel);
    if (key !== undefined && running.get(key)?.call === call) running.delete(key);
  }
}

/**
 * The HTTP answer to a POST whose requests were all cancelled: an event stream closed with nothing
 * on it. A POST that holds a request is answered with JSON or an event stream, never 202, and the
 * JSON-RPC responses of cancelled calls are not sent.
 */
export const unanswered = (): Response => new Response(null, { headers: SSE_HEADERS });

/** The HTTP answer to one request: its reply, or `unanswered` for a cancelled call. */
export function answer(reply: string | Promise<string>): Response | Promise<Response> {
  if (typeof reply === 'string') return jsonResponse(reply);
  return reply.then(
    (r) => jsonResponse(r),
    (e: unknown) => {
      if (e instanceof CallCancelled) return unanswered();
      throw e;
    },
  );
}
