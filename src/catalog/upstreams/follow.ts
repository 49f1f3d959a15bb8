/**
 * The follow loop of an upstream (UpstreamObject): holds the upstream's
 * change stream open and re-lists on `list_changed` (debounced by 100 ms:
 * one re-list for a burst), and at once when the stream drops, so a dead
 * upstream shows as failing now rather than at the next poll. Reconnects
 * with a backoff that doubles to a minute (reset after a stream that lasted
 * a minute); stops when the upstream offers no stream, or when `signal`
 * aborts (configuration changed, upstream removed).
 */

export interface Follow {
  readonly signal: AbortSignal;
  /** Opens the change stream; resolves when it ends, or 'unsupported' when the upstream has none. */
  listen(changed: () => void, signal: AbortSignal): Promise<'unsupported' | 'ended'>;
  /** Re-lists the upstream and reports the listing (failures included). */
  relist(): Promise<unknown>;
}

const DEBOUNCE_MS = 100;
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;
/** A stream that lasted this long was healthy: the next drop starts the backoff over. */
const HEALTHY_MS = 60_000;

/** A wait that ends early, without error, when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}

/** Resolves when the loop has stopped. */
export async function followChanges(f: Follow): Promise<void> {
  const { signal } = f;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const changed = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => void (signal.aborted || f.relist().catch(() => undefined)), DEBOUNCE_MS);
  };
  let backoff = FIRST_BACKOFF_MS;
  try {
    while (!signal.aborted) {
      const started = Date.now();
      const outcome = await f.listen(changed, signal).catch(() => 'ended' as const);
      if (outcome === 'unsupported' || signal.aborted) break;
      // The stream dropped: find out now whether the upstream is still there (the poll may be minutes away).
      if (Date.now() - started > HEALTHY_MS) backoff = FIRST_BACKOFF_MS;
      else await pause(Math.min(backoff, FIRST_BACKOFF_MS), signal);
      if (!signal.aborted) await f.relist().catch(() => undefined);
      await pause(backoff, signal);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
