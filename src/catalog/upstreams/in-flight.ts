/**
 * The forwarded calls an upstream object is running that their caller may still cancel, by the key
 * the caller chose for each (random and never shown to a client: holding it is the right to cancel).
 * In memory only, as long as the call runs: a cancel costs no storage write, and a call outlives no
 * object instance. A key already in use gets no cancel (a caller's bug, not a reason to fail).
 */

/** Keys are the caller's UUIDs; anything longer is not one of ours. */
const MAX_KEY = 64;

export class InFlight {
  private readonly calls = new Map<string, AbortController>();

  /** Registers a call; its signal aborts on `cancel(key)`. Undefined when there is no usable key. */
  open(key: unknown): AbortSignal | undefined {
    if (typeof key !== 'string' || key === '' || key.length > MAX_KEY || this.calls.has(key)) return undefined;
    const ctl = new AbortController();
    this.calls.set(key, ctl);
    return ctl.signal;
  }

  /** The call ended: its key no longer cancels anything. */
  close(key: unknown, signal: AbortSignal | undefined): void {
    if (signal && typeof key === 'string' && this.calls.get(key)?.signal === signal) this.calls.delete(key);
  }

  /** Cancels the call under `key`; false when none runs (unknown, or already finished). */
  cancel(key: unknown): boolean {
    const ctl = typeof key === 'string' ? this.calls.get(key) : undefined;
    if (!ctl) return false;
    this.calls.delete(key as string);
    ctl.abort();
    return true;
  }

  get size(): number {
    return this.calls.size;
  }
}
