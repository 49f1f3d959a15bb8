/**
 * The follow loop of an upstream (UpstreamObject): holds the upstream's
 * change stream open and re-lists on `list_changed` (100 ms after the first
 * of a burst, one re-list for all of it, at most one per MIN_RELIST_MS), and
 * when the stream drops (after 1 s if it
 * lasted under a minute), so a dead upstream shows as failing now rather
 * than at the next poll. Reconnects
 * with a backoff that doubles to a minute (reset after a stream that lasted
 * a minute), and re-lists again once the new stream is open: a change made
 * while no stream was open would otherwise wait for the poll. A stream
 * ended because the object closed its client (a failed call, already
 * reported) reconnects the same way, through the client that replaced it.
 * Stops when the upstream offers no stream, or when `signal` aborts
 * (configuration changed, upstream removed).
 */

export interface Follow {
  readonly signal: AbortSignal;
  /**
   * Opens the change stream and calls `opened` once it is open; resolves when it ends ('ended'), when
   * its client was closed ('closed'), or 'unsupported' when the upstream has none.
   */
  listen(changed: () => void, signal: AbortSignal, opened?: () => void): Promise<'unsupported' | 'ended' | 'closed'>;
  /** Re-lists the upstream and reports the listing (failures included). */
  relist(): Promise<unknown>;
}

const DEBOUNCE_MS = 100;
/**
 * Re-lists on notifications start at least this far apart, and never while one runs: an upstream
 * announcing changes in a loop costs one listing, and at most one new catalog generation, per
 * interval, not one per notification.
 */
export const MIN_RELIST_MS = 2_000;
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;
/** A stream that lasted this long was healthy: the next drop starts the backoff over. */
const HEALTHY_MS = 60_000;

/**
 * A wait that ends early, without error, when `signal` aborts. Its abort listener goes when the
 * wait ends: the loop waits once per reconnect for as long as the upstream is followed.
 */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Resolves when the loop has stopped. */
export async function followChanges(f: Follow): Promise<void> {
  const { signal } = f;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastStart = -Infinity;
  let running: Promise<unknown> = Promise.resolve();
  /** Every re-list goes through here, after the one running: an older listing never lands after a newer one. */
  const relist = (before?: () => void): Promise<unknown> =>
    (running = running.then(() => {
      before?.();
      if (signal.aborted) return;
      lastStart = Date.now();
      return f.relist().catch(() => undefined);
    }));
  // One pending re-list covers every change announced before it starts.
  const changed = () => {
    if (timer !== undefined || signal.aborted) return;
    const wait = Math.max(DEBOUNCE_MS, lastStart + MIN_RELIST_MS - Date.now());
    timer = setTimeout(() => void relist(() => (timer = undefined)), wait);
  };
  let backoff = FIRST_BACKOFF_MS;
  // The first stream follows a fresh listing; every later one may have missed changes while it was down.
  let opened: (() => void) | undefined;
  try {
    while (!signal.aborted) {
      const started = Date.now();
      const outcome = await f.listen(changed, signal, opened).catch(() => 'ended' as const);
      if (outcome === 'unsupported' || signal.aborted) break;
      opened = changed;
      const healthy = Date.now() - started > HEALTHY_MS;
      if (healthy) backoff = FIRST_BACKOFF_MS;
      if (outcome === 'ended') {
        // The stream dropped: find out now whether the upstream is still there (the poll may be minutes away).
        if (!healthy) await pause(FIRST_BACKOFF_MS, signal);
        if (!signal.aborted) await relist();
      }
      await pause(backoff, signal);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
