/**
 * The CatalogWriter's one-at-a-time lock (catalog-writer.ts `mutate`): its writes run strictly one
 * after another, in the order they reach it, as a chain of promises inside the object.
 *
 * Not ctx.blockConcurrencyWhile: that holds every event to the object, not only the other writes.
 * A write waits on KV (snapshot-write.ts retries a refused put after a pause) and on the change
 * feed, and meanwhile every API-key lookup (auth/api-key.ts, on any request whose key this isolate
 * has not memoised) and every admin read would wait too. Under this lock they answer from SQLite:
 * a write's new versions are visible once its transaction commits, before KV has them, as after a
 * failed KV write. Anything else that must not interleave with a write goes through the lock.
 *
 * A write that throws rejects its own caller only, and the next one runs. Its error is marked
 * `retryable`, which Workers RPC carries to the caller (rpc/errors.ts isRetryable: a 503 with
 * Retry-After): every write is safe to repeat, and blockConcurrencyWhile's answer to a throw (the
 * object reset) told callers so. Not a TypeError or its kin: a bug's repeat fails the same way.
 *
 * There is no timeout here (blockConcurrencyWhile reset the object after 30 s): each step of a
 * write is an I/O call the runtime bounds, and a restart of the object drops the chain with the
 * rest of its memory.
 */
export class WriteLock {
  /** Settles when the last write queued so far has; it never rejects, so one failure stops nothing. */
  private tail: Promise<void> = Promise.resolve();

  /** Runs `fn` once every write queued before it has settled; resolves as `fn` does, or rejects retryable. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn).catch((e: unknown) => {
      throw retryable(e);
    });
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

/** JavaScript's own errors of a wrong program: repeating the write fails the same way. */
const BUGS = [TypeError, RangeError, ReferenceError, SyntaxError];

/** `e` marked safe to repeat; a thrown value that cannot carry the mark is wrapped in an Error that does. */
function retryable(e: unknown): unknown {
  if ((e as { retryable?: unknown } | null)?.retryable === true) return e;
  // A bug answers 500, not a 503 that invites the same request again.
  if (BUGS.some((kind) => e instanceof kind)) return e;
  const error = e instanceof Error && Object.isExtensible(e) ? e : new Error(String(e), { cause: e });
  return Object.assign(error, { retryable: true });
}
