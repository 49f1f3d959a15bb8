/**
 * A wait with an upper bound, for reads that must not hold a response hostage (GET /status asks
 * several Durable Objects; one that hangs is reported as unknown instead of stalling the page).
 */

/** Rejects when `p` takes longer than `ms`. */
export async function bounded<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long /status waits for any one object before calling its figure unknown. */
export const STATUS_CALL_MS = 2_000;
