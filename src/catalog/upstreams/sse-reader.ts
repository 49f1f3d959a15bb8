/**
 * Reads Server-Sent Events from an upstream response body, event by event.
 * Comments are dropped, and retry lines go to `onRetry`; empty-data events (priming) are
 * returned so callers can skip them explicitly.
 *
 * Bounded: one event may not grow past `maxEvent` characters, and a reply
 * (not a long-lived change stream) may not pass `maxTotal` bytes. Past a
 * bound the body is cancelled and `too_large` thrown, so an endless or huge
 * stream costs at most the bound in memory.
 */
import { MAX_REPLY_BYTES } from './body.js';
import { UpstreamError } from './errors.js';

export interface UpstreamEvent {
  event: string;
  id?: string;
  data: string;
}

export async function* readSse(
  body: ReadableStream<Uint8Array>,
  limits: {
    maxEvent?: number;
    maxTotal?: number;
    /** Bytes read so far, shared by the streams of one reply (a resumed reply's cap is the whole reply's). */
    spent?: { bytes: number };
    onRetry?: (ms: number) => void;
  } = {},
): AsyncGenerator<UpstreamEvent> {
  const maxEvent = limits.maxEvent ?? MAX_REPLY_BYTES;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  // The text since the last complete event, kept in pieces and joined only once a separator arrives: appending
  // to one string and searching it whole on every chunk made a large event in small chunks quadratic.
  let pending: string[] = [];
  let pendingLength = 0;
  // A CR that ends a chunk waits for the next: an LF there makes them one line ending (CRLF), not two.
  let cr = '';
  const spent = limits.spent ?? { bytes: 0 };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (!done) spent.bytes += value.byteLength;
      if (limits.maxTotal !== undefined && spent.bytes > limits.maxTotal)
        throw new UpstreamError(
          'protocol',
          `upstream SSE reply passed ${limits.maxTotal} bytes`,
          undefined,
          undefined,
          'too_large',
        );
      const text = cr + (done ? decoder.decode() : decoder.decode(value, { stream: true }));
      cr = !done && text.endsWith('\r') ? '\r' : '';
      const fresh = (cr ? text.slice(0, -1) : text).replace(/\r\n?/g, '\n');
      // Only the fresh text, with the LF that may end the pending text before it, can hold a new separator.
      const joint = pendingLength > 0 && pending[pending.length - 1]!.endsWith('\n') ? '\n' : '';
      if ((joint + fresh).indexOf('\n\n') < 0) {
        if (fresh) pending.push(fresh);
        pendingLength += fresh.length;
      } else {
        let buf = pending.join('') + fresh;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          let event = 'message';
          let id: string | undefined;
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue;
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'event') event = val;
            else if (field === 'id') id = val;
            else if (field === 'data') data.push(val);
            else if (field === 'retry' && /^\d+$/.test(val)) limits.onRetry?.(Number(val));
          }
          if (data.length || id !== undefined) yield { event, id, data: data.join('\n') };
        }
        pending = buf ? [buf] : [];
        pendingLength = buf.length;
      }
      // What is left at the end is an event never ended by a blank line: dropped, as the SSE spec says.
      if (done) return;
      if (pendingLength > maxEvent)
        throw new UpstreamError(
          'protocol',
          `upstream SSE event passed ${maxEvent} characters`,
          undefined,
          undefined,
          'too_large',
        );
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
