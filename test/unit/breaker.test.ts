/**
 * upstreams/breaker.ts: an upstream's circuit opens after three failures in a row, for a backoff
 * that doubles from one second up to five minutes; the refusal names the last real fault first;
 * one success closes it; a call that timed out while the upstream answered others is not counted.
 */
import { describe, expect, it } from 'vitest';
import { Breaker, BREAKER_MAX_MS } from '../../src/catalog/upstreams/breaker.js';

const T0 = 1_000_000;

describe('Breaker', () => {
  it('stays closed for the first two failures and opens on the third, for one second', () => {
    const b = new Breaker();
    b.failed('timeout: first', T0);
    b.failed('timeout: second', T0);
    expect(b.refusal(T0)).toBeNull();
    b.failed('http: upstream answered 502', T0);
    expect(b.refusal(T0)).toBe('http: upstream answered 502 (circuit open after 3 failures; next try in 1 s)');
    expect(b.refusal(T0 + 999)).not.toBeNull();
    expect(b.refusal(T0 + 1000)).toBeNull();
  });

  it('doubles the backoff with every further failure, up to five minutes', () => {
    const b = new Breaker();
    const waits: number[] = [];
    for (let i = 1; i <= 14; i++) {
      b.failed(`fault ${i}`, T0);
      const refusal = b.refusal(T0);
      waits.push(refusal === null ? 0 : Number(/next try in (\d+) s/.exec(refusal)![1]));
    }
    expect(waits).toEqual([0, 0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300]);
    expect(BREAKER_MAX_MS).toBe(300_000);
    expect(b.failuresInARow).toBe(14);
  });

  it('closes on one success, and counts from zero again', () => {
    const b = new Breaker();
    for (let i = 0; i < 5; i++) b.failed('timeout', T0);
    b.succeeded();
    expect(b.refusal(T0)).toBeNull();
    expect(b.failuresInARow).toBe(0);
    b.failed('timeout', T0);
    b.failed('timeout', T0);
    expect(b.refusal(T0)).toBeNull();
  });

  it('counts a timed-out call only when the upstream answered nothing since that call began', () => {
    const b = new Breaker();
    // Each slow call began at T0 + i, and another call was answered while it ran: none counts.
    for (let i = 0; i < 5; i++) {
      b.succeeded(T0 + i + 0.5);
      expect(b.timedOut('timeout: slow prompt', T0 + i, T0 + i + 1)).toBe(false);
    }
    expect(b.failuresInARow).toBe(0);
    expect(b.refusal(T0 + 10)).toBeNull();
    // An answer that is a JSON-RPC error is an answer too: the upstream is there.
    b.answered(T0 + 10.5);
    expect(b.timedOut('timeout: slow prompt', T0 + 10, T0 + 11)).toBe(false);
    expect(b.failuresInARow).toBe(0);
    // Nothing answered since they began (an upstream that stalls): each counts, and the third opens it.
    const since = T0 + 20;
    for (let i = 0; i < 3; i++) expect(b.timedOut('timeout: stalled', since, since + 100)).toBe(true);
    expect(b.refusal(since + 100)).toMatch(/^timeout: stalled \(circuit open after 3 failures/);
  });
});
