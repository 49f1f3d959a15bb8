/**
 * The Worker's half of every long-lived client stream: an SSE response on
 * one side, a hibernatable WebSocket to a Durable Object on the other.
 *
 * The object hibernates between events, so an idle stream costs a Worker
 * waiting on I/O and nothing else; the Worker, not the object, writes the
 * keepalive comments. If the socket drops without the object ending the
 * stream (deploy, eviction, restart) the bridge reconnects with a fresh
 * stub, a failed attempt again after a growing pause, a bounded number of
 * times in a row; one that went quiet with no
 * close is noticed by the stream trailing its own isolate's catalog (watch.ts).
 * Each stream kind (legacy GET stream, modern listen stream) supplies only
 * its own framing.
 *
 * A stream lives no longer than the credential that opened it: at each
 * keepalive the bridge asks `stillValid` (an expired token, a revoked key)
 * and, on false, ends the stream the way its maximum duration would. Nor
 * does it outlive its client: the request's signal aborting, a write
 * failing, or the client taking none of its bytes for 30 s (and two
 * keepalive intervals) closes the socket so the object stops sending to it.
 */
import { log } from '../lib/log.js';
import { lagWatch, validityWatch } from './watch.js';
import { closeSocket } from './sockets.js';
import { SSE_HEADERS, sseComment } from './sse.js';
import type { BridgeOptions, ClientSide } from './bridge-options.js';

const MAX_RECONNECTS = 5;
/** The first pause before a failed reconnect is tried again (then twice, three times that…). */
const RETRY_MS = 200;
/**
 * A client that took none of the bytes waiting for it for this long (and at least two keepalive
 * intervals) is gone or stuck: the stream ends rather than queue frames for it until its maximum
 * duration. Long enough that a client paused by a slow network or a busy machine is not cut off.
 */
const STALLED_MS = 30_000;
const dec = new TextDecoder();

/** Opens the socket-backed SSE response; `preamble` is written before any frame. */
export function bridge<F>(first: WebSocket, opts: BridgeOptions<F>, preamble: Uint8Array[] = []): Response {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  let closed = false;
  let socket: WebSocket | undefined = first;
  let reconnects = 0;
  // A write settles when the client has taken its bytes (the readable side queues nothing ahead of it).
  let untaken = 0;
  let taken = 0;
  const stalledTicks = Math.max(2, Math.ceil((opts.stalledMs ?? STALLED_MS) / opts.keepaliveMs));
  // Errors the body of a client that stopped reading: a close would wait behind its bytes forever.
  let abandoned = false;
  const abandon = () => {
    if (abandoned) return;
    abandoned = true;
    writer.abort(new Error('the client stopped reading')).catch(() => {});
  };

  const client: ClientSide = {
    write: (bytes) => {
      if (closed) return;
      untaken++;
      writer.write(bytes).then(() => (untaken--, taken++), client.end);
    },
    end: () => {
      if (closed) return;
      closed = true;
      clearInterval(keepalive);
      if (lifetime !== undefined) clearTimeout(lifetime);
      if (retry !== undefined) clearTimeout(retry);
      if (socket) closeSocket(socket, 1000, 'stream closed');
      writer.close().catch(() => {});
      // The close waits behind bytes the client has not taken: a client that takes none of them in
      // as long as the stall rule allows gets the body errored, so the response ends either way.
      if (untaken > 0 && !abandoned) {
        const takenAtEnd = taken;
        setTimeout(() => untaken > 0 && taken === takenAtEnd && abandon(), stalledTicks * opts.keepaliveMs);
      }
    },
  };

  const deliver = (frame: F) => {
    if (closed) return;
    try {
      opts.onFrame(frame, client);
    } catch (e) {
      log.error('stream frame not handled; stream ended', { error: String(e) });
      client.end();
    }
  };
  // Frames still waiting on `before`, in arrival order; undefined when none is (the usual case: no promise).
  let waiting: Promise<void> | undefined;
  const receive = (frame: F) => {
    const wait = waiting ? waiting.then(() => opts.before?.(frame)) : opts.before?.(frame);
    if (wait === undefined) return deliver(frame);
    const tail = (waiting = wait.then(() => deliver(frame)));
    void tail.then(() => {
      if (waiting === tail) waiting = undefined;
    });
  };

  // While a reconnect is under way there is no socket: nothing can start a second one. A connect
  // that fails (a shard restarting under all its streams' reconnects at once) is tried again after a
  // pause that grows, with jitter, within the same bound; an answer (a number: ended, refused) ends it.
  let retry: ReturnType<typeof setTimeout> | undefined;
  const reconnect = () => {
    socket = undefined;
    retry = undefined;
    if (closed) return;
    if (++reconnects > MAX_RECONNECTS) return client.end();
    opts.connect(true).then(
      (next) => (typeof next === 'number' ? client.end() : attach(next)),
      () => void (closed || (retry = setTimeout(reconnect, RETRY_MS * reconnects * (0.5 + Math.random())))),
    );
  };
  // Only the current socket speaks for the stream: one given up for lagging may still deliver a
  // frame or its `end: replaced`, and its close must not start a second reconnect.
  const attach = (ws: WebSocket) => {
    if (closed) return closeSocket(ws, 1000, 'stream closed');
    socket = ws;
    ws.addEventListener('message', (m) => {
      if (ws !== socket || closed) return;
      // The object answered on this socket: the bound is on consecutive failed reconnects, not on
      // drops over the stream's life (a stream that outlives six restarts must not end for it).
      reconnects = 0;
      receive(JSON.parse(typeof m.data === 'string' ? m.data : dec.decode(m.data as ArrayBuffer)) as F);
    });
    ws.addEventListener('close', () => {
      if (ws !== socket || closed) return;
      // Frames still waiting on `before` may end the stream (a replacement's `end` comes just before
      // this close): the reconnect is decided after them, or it would replace the replacement.
      if (waiting) void waiting.then(() => ws === socket && !closed && reconnect());
      else reconnect();
    });
  };
  const sweep = opts.lagging
    ? lagWatch(opts.lagging, opts.lagGraceMs ?? 2 * opts.keepaliveMs, (generation) => {
        if (!socket) return false;
        // Worth an operator's eye: a socket the runtime left open with nothing arriving on it.
        log.warn('stream socket went quiet; reconnecting for a missed change', { generation });
        closeSocket(socket, 1000, 'lagging');
        reconnect();
        return true;
      })
    : undefined;

  // The client going away cancels the response body, which errors our side at once: drop the
  // socket now rather than at the next keepalive, so the object stops counting this stream.
  writer.closed.catch(client.end);
  // Not every runtime cancels the body when the client leaves (workerd 1.20260714 leaves the writes
  // pending, failing none): the request's signal is what reports it there.
  if (opts.clientGone?.aborted) queueMicrotask(client.end);
  else opts.clientGone?.addEventListener('abort', client.end, { once: true });
  for (const bytes of preamble) client.write(bytes);
  const finish = () => {
    if (!closed) client.end();
  };
  const validity = opts.stillValid && validityWatch(opts.stillValid, finish);
  let takenAtTick = 0;
  let idleTicks = 0;
  const tick = () => {
    idleTicks = untaken > 0 && taken === takenAtTick ? idleTicks + 1 : 0;
    takenAtTick = taken;
    if (idleTicks >= stalledTicks) {
      abandon();
      return client.end();
    }
    client.write(sseComment('keepalive'));
    sweep?.();
    validity?.();
  };
  const keepalive = setInterval(tick, opts.keepaliveMs);
  const lifetime = opts.maxMs ? setTimeout(finish, opts.maxMs) : undefined;
  attach(first);
  return new Response(readable, { status: 200, headers: SSE_HEADERS });
}
