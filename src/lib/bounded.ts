/**
 * A wait with an upper bound, for work that must not hold a response hostage: upstream calls
 * (catalog/upstreams/wire.ts), and GET /status, which asks several Durable Objects and reports one
 * that hangs as unknown instead of stalling the page.
 */

/** Rejects with `late()` (default: an Error 'timeout') when `p` takes longer than `ms`. */
export async function bounded<T>(
  p: Promise<T>,
  ms: number,
  late: () => Error = () => new Error('timeout'),
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(late()), ms)));
  try {
    return await Promise.race([p, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long /status waits for any one object before calling its figure unknown. */
export const STATUS_CALL_MS = 2_000;

/** A /status figure: what `p` gives within STATUS_CALL_MS, else 'unknown' (late or failed). */
export async function statusFigure<T>(p: Promise<T>): Promise<T | 'unknown'> {
  try {
    return await bounded(p, STATUS_CALL_MS);
  } catch {
    return 'unknown';
  }
}
