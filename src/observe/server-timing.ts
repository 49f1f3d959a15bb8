/**
 * `Server-Timing` on a response (docs/observability.md): which cache layer
 * answered, the upstream's own time, and the total to the response's
 * headers. A response whose headers are immutable (one that came from
 * `fetch` or `caches.default`) is re-wrapped around the same body stream,
 * never copied; a stream (SSE) is only given a header before it starts.
 */
import type { RequestRecord } from '../lib/record.js';

/** A quoted-string per RFC 9110: upstream ids are configuration, but quote them rather than trust them. */
const quoted = (s: string) => `"${s.replace(/["\\]/g, '\\$&')}"`;

export function serverTiming(record: RequestRecord, durationMs: number): string {
  let value = '';
  if (record.cache !== undefined) value += `cache;desc=${record.cache}, `;
  if (record.upstream !== undefined)
    value += `upstream;dur=${record.upstreamMs ?? 0};desc=${quoted(record.upstream)}, `;
  return `${value}total;dur=${durationMs}`;
}

/** The response with its Server-Timing header: the same object when its headers may be changed. */
export function withServerTiming(res: Response, value: string): Response {
  try {
    res.headers.set('server-timing', value);
    return res;
  } catch {
    // Immutable headers: a new Response around the same body (no copy) and status.
    const out = new Response(res.body, res);
    out.headers.set('server-timing', value);
    return out;
  }
}
