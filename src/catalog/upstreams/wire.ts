/**
 * The wire level of the upstream client: its error type, header encoding,
 * and reading one JSON-RPC reply (plain JSON or an SSE stream) within a
 * timeout. No state: the client (client.ts) owns connections and eras.
 */
import { readSse, type UpstreamEvent } from './sse-reader.js';

export type Json = Record<string, unknown>;

export type UpstreamErrorKind = 'timeout' | 'http' | 'protocol' | 'rpc';

export class UpstreamError extends Error {
  constructor(
    readonly kind: UpstreamErrorKind,
    message: string,
    readonly code?: number,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** Header-safe value, or the spec's base64 sentinel. */
export function headerValue(v: string): string {
  return /^[\x20-\x7e]*$/.test(v) && v.trim() === v ? v : `=?base64?${btoa(String.fromCharCode(...new TextEncoder().encode(v)))}?=`;
}

/** The result for `id`, from a JSON reply or from an SSE stream (priming and other messages skipped). */
export async function reply(res: Response, id: number, timeoutMs: number): Promise<Json> {
  try {
    return await readReply(res, id, timeoutMs);
  } catch (e) {
    if (e instanceof UpstreamError) throw e;
    const name = (e as Error)?.name;
    if (name === 'TimeoutError' || name === 'AbortError') throw new UpstreamError('timeout', `upstream reply did not complete within ${timeoutMs} ms`);
    throw new UpstreamError('protocol', `upstream closed the reply mid-stream (${String(e)})`);
  }
}

async function readReply(res: Response, id: number, timeoutMs: number): Promise<Json> {
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('text/event-stream') && res.body) {
    const find = async () => {
      for await (const ev of readSse(res.body!)) {
        if (!ev.data) continue;
        const msg = parseJson(ev);
        if (msg.id === id) return msg;
      }
      throw new UpstreamError('protocol', 'SSE reply ended before the response arrived');
    };
    return unwrap(await withTimeout(find(), timeoutMs, 'reading the SSE reply'));
  }
  const text = await withTimeout(res.text(), timeoutMs, 'reading the reply');
  let msg: Json;
  try {
    msg = JSON.parse(text) as Json;
  } catch {
    throw new UpstreamError('protocol', 'upstream sent a reply that is not JSON');
  }
  return unwrap(msg);
}

export function parseJson(ev: UpstreamEvent): Json {
  try {
    return JSON.parse(ev.data) as Json;
  } catch {
    throw new UpstreamError('protocol', 'upstream sent an SSE event that is not JSON');
  }
}

export function unwrap(msg: Json): Json {
  const err = msg.error as { code?: number; message?: string; data?: unknown } | undefined;
  if (err) throw new UpstreamError('rpc', String(err.message ?? 'upstream error'), Number(err.code ?? -32603), err.data);
  if (typeof msg.result !== 'object' || msg.result === null) throw new UpstreamError('protocol', 'upstream reply has neither result nor error');
  return msg.result as Json;
}

export async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, rej) => (timer = setTimeout(() => rej(new UpstreamError('timeout', `upstream timed out ${what} (${ms} ms)`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
