/**
 * A Durable Object held still (blockConcurrencyWhile), so that calls made to it meanwhile wait: for
 * tests of what a call in flight meets. `release()` lets them through or, with `reset`, restarts the
 * object under them first (ctx.abort: their callers see a reset); it resolves once the hold is over.
 */
import { runInDurableObject } from 'cloudflare:test';

export function hold(stub: DurableObjectStub, reset?: string): { release: () => Promise<void> } {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const held = runInDurableObject(stub, (_o, ctx) =>
    ctx.blockConcurrencyWhile(async () => {
      await gate;
      if (reset !== undefined) ctx.abort(reset);
    }),
  ).catch(() => {});
  return {
    release: async () => {
      open();
      await held;
    },
  };
}
