/**
 * A legacy GET stream's keepalive question (rpc/legacy-stream.ts allTrue): the session and the
 * credential must both still hold. One answer already false decides, and the other, still coming,
 * is read anyway: a check that then fails (its Durable Object call, an introspection) must not
 * become an unhandled rejection.
 */
import { describe, expect, it } from 'vitest';
import { allTrue } from '../../src/rpc/legacy-stream.js';

describe('allTrue', () => {
  it('answers from both checks, synchronously when it can', async () => {
    expect(allTrue(true, true)).toBe(true);
    expect(allTrue(true, false)).toBe(false);
    expect(await allTrue(Promise.resolve(true), true)).toBe(true);
    expect(await allTrue(true, Promise.resolve(false))).toBe(false);
  });

  it('leaves no rejection unhandled when one check is already false', async () => {
    const unhandled: unknown[] = [];
    const onRejection = (e: PromiseRejectionEvent) => {
      unhandled.push(e.reason);
      e.preventDefault();
    };
    addEventListener('unhandledrejection', onRejection);
    try {
      expect(allTrue(false, Promise.reject(new Error('session check failed')))).toBe(false);
      expect(allTrue(Promise.reject(new Error('credential check failed')), false)).toBe(false);
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      removeEventListener('unhandledrejection', onRejection);
    }
    expect(unhandled).toEqual([]);
  });
});
