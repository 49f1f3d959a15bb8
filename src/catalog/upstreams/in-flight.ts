/**
 * The forwarded calls an upstream object is running that their caller may still cancel, by the key
 * the caller chose for each (random and never shown to a client: holding it is the right to cancel).
 * In memory only, as long as the call runs: a cancel costs no storage write, and a call outlives no
 * object instance. A key already in use gets no cancel (a caller's bug, not a reason to fail).
 * A cancel may overtake its call (it comes from another request, on another stub): a key cancelled
 * before it opens is remembered for a while, and the call opens already cancelled.
 */
import { BoundedMap } from '../../lib/memo.js';

/** Keys are the caller's UUIDs; anything longer is not one of ours. */
const MAX_KEY = 64;

/** How long a cancel that came first waits for its call: longer than a call takes to arrive. */
const EARLY_MS = 60_000;

export class InFlight {
  private readonly calls = new Map<string, AbortController>();
  /** Keys cancelled before their call opened, and when. */
  private readonly early = new BoundedMap<string, number>(1_000);

  /** Registers a call; its signal aborts on `cancel(key)`. Undefined when there is no usable key. */
  open(key: unknown): AbortSignal | undefined {
    if (!usable(key) || this.calls.has(key)) return undefined;
    const ctl = new AbortController();
    const at = this.early.get(key);
    if (at !== undefined) {
      this.early.delete(key);
      if (Date.now() - at < EARLY_MS) ctl.abort();
    }
    this.calls.set(key, ctl);
    return ctl.signal;
  }

  /** Runs a call under `key` (none without a usable key): `fn` gets the signal a cancel aborts. */
  async run<T>(key: unknown, fn: (cancel: AbortSignal | undefined) => Promise<T>): Promise<T> {
    const signal = this.open(key);
    try {
      return await fn(signal);
    } finally {
      this.close(key, signal);
    }
  }

  /** The call ended: its key no longer cancels anything. */
  close(key: unknown, signal: AbortSignal | undefined): void {
    if (signal && typeof key === 'string' && this.calls.get(key)?.signal === signal) this.calls.delete(key);
  }

  /** Cancels the call under `key`; false when none runs (unknown, finished, or not opened yet). */
  cancel(key: unknown): boolean {
    if (!usable(key)) return false;
    const ctl = this.calls.get(key);
    if (!ctl) {
      this.early.set(key, Date.now());
      return false;
    }
    this.calls.delete(key);
    ctl.abort();
    return true;
  }

  get size(): number {
    return this.calls.size;
  }
}

const usable = (key: unknown): key is string => typeof key === 'string' && key !== '' && key.length <= MAX_KEY;
