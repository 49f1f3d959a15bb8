/**
 * The circuit breaker of one upstream (upstream-object.ts). After
 * BREAKER_THRESHOLD failed calls in a row it opens: the object stops calling
 * the upstream for a backoff that starts at one second and doubles with
 * every further failure, up to five minutes, and answers at once with the
 * last real fault and when the next try is. One success closes it. A call
 * that ran out of time while the upstream answered others is slow, not the
 * upstream down: it is not counted (`timedOut`).
 */

export const BREAKER_THRESHOLD = 3;
export const BREAKER_MAX_MS = 5 * 60_000;

export class Breaker {
  private failures = 0;
  private openUntil = 0;
  /** The last real fault, kept in front of the breaker's notice. */
  private lastFault = '';
  /** When the upstream last answered a call (Date.now()). */
  private answeredAt = -Infinity;

  /** Failed calls in a row. */
  get failuresInARow(): number {
    return this.failures;
  }

  /** Why the upstream may not be called now (the last fault, then the breaker); null when it may. */
  refusal(now = Date.now()): string | null {
    const wait = this.openUntil - now;
    return wait > 0
      ? `${this.lastFault} (circuit open after ${this.failures} failures; next try in ${Math.ceil(wait / 1000)} s)`
      : null;
  }

  /** A failed call, described (errors.ts): counted, and the breaker opened or its backoff doubled. */
  failed(fault: string, now = Date.now()): void {
    this.lastFault = fault;
    this.failures += 1;
    if (this.failures >= BREAKER_THRESHOLD)
      this.openUntil = now + Math.min(BREAKER_MAX_MS, 1000 * 2 ** (this.failures - BREAKER_THRESHOLD));
  }

  /**
   * A call started at `since` that ran out of time: counted as `failed` only when the upstream answered
   * nothing since it began. One prompt slower than the timeout, among prompts the upstream answers,
   * must not open the breaker that every other call of every caller goes through. Whether it counted.
   */
  timedOut(fault: string, since: number, now = Date.now()): boolean {
    if (this.answeredAt >= since) return false;
    this.failed(fault, now);
    return true;
  }

  /**
   * The upstream answered a call with a JSON-RPC error: not a success of that call, but an answer,
   * so a slow call running meanwhile is its own problem, not the upstream's (timedOut).
   */
  answered(now = Date.now()): void {
    this.answeredAt = now;
  }

  succeeded(now = Date.now()): void {
    this.failures = 0;
    this.openUntil = 0;
    this.answeredAt = now;
  }
}
