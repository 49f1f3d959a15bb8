/**
 * Server-Sent Events encoding: the one place SSE lines are written.
 */

const enc = new TextEncoder();

export interface SseEvent {
  id?: string;
  event?: string;
  /** Written as one `data:` line per line of text; an empty string makes a priming event. */
  data: string;
}

export function sseEvent(e: SseEvent): Uint8Array {
  let out = '';
  if (e.id !== undefined) out += `id: ${e.id}\n`;
  if (e.event !== undefined) out += `event: ${e.event}\n`;
  out +=
    e.data === ''
      ? 'data:\n'
      : e.data
          .split('\n')
          .map((l) => `data: ${l}\n`)
          .join('');
  return enc.encode(`${out}\n`);
}

export const sseComment = (text: string): Uint8Array => enc.encode(`: ${text}\n\n`);
export const sseRetry = (ms: number): Uint8Array => enc.encode(`retry: ${ms}\n\n`);

export const SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};
