/**
 * Opening, writing and closing the sockets that carry stream frames between
 * registry shards and the Workers holding client streams. They never throw: a socket that is already closing is the
 * Worker's to reconnect, and each object keeps what a reconnect needs.
 */

import { TooManyStreamsError } from './stream-limits.js';
import type { ShardFrame } from './events.js';

export function sendFrame(ws: WebSocket, frame: ShardFrame): void {
  try {
    ws.send(JSON.stringify(frame));
  } catch {
    // Closing: the Worker reconnects, and its shard replays what the stream missed.
  }
}

export function closeSocket(ws: WebSocket, code: number, reason: string): void {
  try {
    ws.close(code, reason);
  } catch {
    // Already closed.
  }
}

/** Answers the peer's close (1005/1006 carry no code we may send back). */
export function echoClose(ws: WebSocket, code: number): void {
  closeSocket(ws, code === 1005 || code === 1006 ? 1000 : code, 'closed');
}

/** Upgrades a request to a Durable Object into an accepted WebSocket, or the status it answered. */
export async function upgrade(
  stub: { fetch(url: string, init: RequestInit): Promise<Response> },
  headers: Record<string, string> = {},
): Promise<WebSocket | number> {
  const res = await stub.fetch('https://object.internal/stream', { headers: { ...headers, upgrade: 'websocket' } });
  if (!res.webSocket) {
    // A full shard: the runtime's mark for an overloaded object, which the app answers 503 with Retry-After.
    if (res.status === 503) throw Object.assign(new Error('registry shard is full'), { overloaded: true });
    if (res.status === 429) throw new TooManyStreamsError();
    if (res.status >= 400 && res.status < 500) return res.status;
    throw new Error(`object answered ${res.status} to a stream upgrade`);
  }
  res.webSocket.accept();
  return res.webSocket;
}
