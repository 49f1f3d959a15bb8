/** Bounded waiting: every wait in the bench has an upper bound, so a run fails rather than hangs. */

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const withTimeout = (p, ms, what) => {
  let timer;
  return Promise.race([
    p,
    new Promise((_, rej) => {
      timer = setTimeout(() => rej(new Error(`${what}: timed out after ${ms} ms`)), ms);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
};

/** Runs fn over items, at most `limit` at a time, until `stopped()`; rejects on the first failure. */
export async function pool(items, limit, fn, stopped = () => false) {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !stopped()) {
      const i = next++;
      await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (stopped()) throw new Error('shutting down');
}
