/**
 * W3C trace context from `_meta` (lib/trace-context.ts) and Server-Timing on a response whose
 * headers are immutable (observe/server-timing.ts).
 */
import { describe, expect, it } from 'vitest';
import { RequestRecord } from '../../src/lib/record.js';
import { childTraceparent, readTraceContext, traceIdOf, traceMeta } from '../../src/lib/trace-context.js';
import { serverTiming, withServerTiming } from '../../src/observe/server-timing.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const GOOD = `00-${TRACE}-00f067aa0ba902b7-01`;

function read(meta: unknown): RequestRecord {
  const r = new RequestRecord();
  readTraceContext(r, meta);
  return r;
}

describe('trace context', () => {
  it('keeps a valid traceparent and tracestate; a batch keeps the first', () => {
    const r = read({ traceparent: GOOD, tracestate: 'vendor=abc,other=1' });
    expect(r.traceparent).toBe(GOOD);
    expect(r.tracestate).toBe('vendor=abc,other=1');
    readTraceContext(r, { traceparent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-00` });
    expect(r.traceparent).toBe(GOOD);
  });

  it.each([
    ['all-zero trace id', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`],
    ['all-zero parent id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['upper case', GOOD.toUpperCase()],
    ['another version', `01-${TRACE}-00f067aa0ba902b7-01`],
    ['short id', `00-${TRACE.slice(1)}-00f067aa0ba902b7-01`],
    ['trailing text', `${GOOD}-extra`],
    ['not a string', 7],
  ])('refuses %s', (_why, traceparent) => {
    expect(read({ traceparent, tracestate: 'a=b' })).toMatchObject({ traceparent: undefined, tracestate: undefined });
  });

  it('drops a tracestate that is not printable ASCII or too long, keeping the traceparent', () => {
    expect(read({ traceparent: GOOD, tracestate: 'a=\u0000' }).tracestate).toBeUndefined();
    expect(read({ traceparent: GOOD, tracestate: 'a'.repeat(513) }).tracestate).toBeUndefined();
  });

  it('an upstream gets the same trace id and flags with a fresh parent id', () => {
    const child = childTraceparent(GOOD);
    expect(child).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(traceIdOf(child)).toBe(TRACE);
    expect(child.slice(36, 52)).not.toBe('00f067aa0ba902b7');
    expect(childTraceparent(GOOD)).not.toBe(child);
    expect(traceMeta(read({ traceparent: GOOD, tracestate: 's=1' }))).toEqual({
      traceparent: expect.stringMatching(new RegExp(`^00-${TRACE}-`)),
      tracestate: 's=1',
    });
    expect(traceMeta(read({}))).toEqual({});
  });
});

describe('Server-Timing', () => {
  it('quotes the upstream id and always ends with the total', () => {
    const r = new RequestRecord();
    r.cache = 'upstream';
    r.upstream = 'we"ird\\id';
    r.upstreamMs = 12;
    expect(serverTiming(r, 15)).toBe('cache;desc=upstream, upstream;dur=12;desc="we\\"ird\\\\id", total;dur=15');
    expect(serverTiming(new RequestRecord(), 3)).toBe('total;dur=3');
  });

  it('re-wraps a response with immutable headers around the same body, status and headers', async () => {
    // A response read back from the edge cache has immutable headers, like one from fetch.
    const cache = await caches.open('server-timing-test');
    const key = 'https://gateway.test/cached';
    await cache.put(
      key,
      new Response('hello', { headers: { 'content-type': 'text/plain', 'cache-control': 'max-age=60' } }),
    );
    const cached = (await cache.match(key))!;
    expect(() => cached.headers.set('x', '1')).toThrow(TypeError);
    const out = withServerTiming(cached, 'total;dur=1');
    expect(out).not.toBe(cached);
    expect(out.status).toBe(200);
    expect(out.headers.get('server-timing')).toBe('total;dur=1');
    expect(out.headers.get('content-type')).toContain('text/plain');
    expect(await out.text()).toBe('hello');
    const mutable = new Response('x');
    expect(withServerTiming(mutable, 'total;dur=2')).toBe(mutable);
  });
});
