/**
 * The SSE reader's cost on a large event that arrives in many small chunks: the text is searched for the
 * end of an event once, not once per chunk (a 4 MiB event in 1 KiB chunks was seconds of CPU per reply).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readSse } from '../../src/catalog/upstreams/sse-reader.js';

const KIB = 1024;

function chunked(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(ctl) {
      if (at >= bytes.length) return ctl.close();
      ctl.enqueue(bytes.slice(at, (at += size)));
    },
  });
}

afterEach(() => vi.restoreAllMocks());

describe('one large event in small chunks', () => {
  it('is read whole, searching each character for the end of an event a bounded number of times', async () => {
    const payload = 'x'.repeat(4 * KIB * KIB);
    // Characters searched for the blank line that ends an event; past the budget the reader is quadratic.
    let scanned = 0;
    const budget = 4 * payload.length;
    const indexOf = Object.getOwnPropertyDescriptor(String.prototype, 'indexOf')!.value as (
      s: string,
      at?: number,
    ) => number;
    vi.spyOn(String.prototype, 'indexOf').mockImplementation(function (this: string, search, from) {
      if (search === '\n\n') scanned += this.length - (from ?? 0);
      if (scanned > budget) throw new Error(`searched ${scanned} characters for an event's end`);
      return Reflect.apply(indexOf, this, [search, from]);
    });
    const out = [];
    for await (const ev of readSse(chunked(`event: message\r\ndata: ${payload}\r\n\r\n`, KIB))) out.push(ev);
    vi.restoreAllMocks();
    expect(out).toHaveLength(1);
    expect(out[0]!.event).toBe('message');
    expect(out[0]!.data.length).toBe(payload.length);
    expect(out[0]!.data === payload).toBe(true);
    // The count is real: the payload was searched at least once.
    expect(scanned).toBeGreaterThanOrEqual(payload.length);
  });

  it('still splits events whose separator spans two chunks, in every chunk size', async () => {
    const text = 'data: a\n\ndata: bb\r\n\r\nid: 7\ndata: c\n\n: note\n\ndata: d\r\rdata: tail';
    for (const size of [1, 2, 3, 5, 8, text.length]) {
      const out = [];
      for await (const ev of readSse(chunked(text, size))) out.push([ev.data, ev.id]);
      expect(out, `chunks of ${size}`).toEqual([
        ['a', undefined],
        ['bb', undefined],
        ['c', '7'],
        ['d', undefined],
      ]);
    }
  });
});
