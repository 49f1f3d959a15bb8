/**
 * The upstream object's register of cancellable forwarded calls (in-flight.ts): a cancel reaches only
 * a call still running under its key; unknown, finished, reused and malformed keys are ignored, and a
 * cancel that arrives before its call (from another request, on another stub) is kept for it.
 */
import { expect, it } from 'vitest';
import { InFlight } from '../../src/catalog/upstreams/in-flight.js';

it('cancels a running call by its key, once, and nothing else', () => {
  const calls = new InFlight();
  const a = calls.open('key-a')!;
  const b = calls.open('key-b')!;
  expect(calls.cancel('unknown')).toBe(false);
  expect(calls.cancel(42)).toBe(false);
  expect(calls.cancel('key-a')).toBe(true);
  expect([a.aborted, b.aborted]).toEqual([true, false]);
  expect(calls.cancel('key-a'), 'a cancelled call is gone').toBe(false);
  calls.close('key-b', b);
  expect(calls.cancel('key-b'), 'a finished call is gone').toBe(false);
  expect(b.aborted).toBe(false);
  expect(calls.size).toBe(0);
});

it('gives no cancel to a key already running or not a key, and a stale close keeps the running call', () => {
  const calls = new InFlight();
  const first = calls.open('same')!;
  expect(calls.open('same')).toBeUndefined();
  expect(calls.open(undefined)).toBeUndefined();
  expect(calls.open('')).toBeUndefined();
  expect(calls.open('x'.repeat(65))).toBeUndefined();
  calls.close('same', undefined);
  expect(calls.cancel('same')).toBe(true);
  expect(first.aborted).toBe(true);
});

it('a cancel that overtakes its call is kept for it: the call opens already cancelled, once', () => {
  const calls = new InFlight();
  expect(calls.cancel('early')).toBe(false);
  const signal = calls.open('early')!;
  expect(signal.aborted, 'the call opens cancelled').toBe(true);
  calls.close('early', signal);
  expect(calls.open('early')!.aborted, 'the early cancel is used up').toBe(false);
});
