/**
 * The deadline of one upstream operation, and its caller's cancel: each request and reply read of
 * the operation gets what is left of the time, and stops at once when the caller (a downstream
 * client's cancel, rpc/cancels.ts) gives the operation up. A cancel surfaces as the `cancelled`
 * error wherever the abort was noticed, so the object neither counts it as a fault nor reconnects.
 */
import { bounded } from '../../lib/bounded.js';
import { UpstreamError } from './errors.js';

/**
 * One deadline for a whole upstream operation (handshake, every page, every
 * retry): each request and reply read gets what is left of it, so a slow
 * handshake and a hanging list end at the timeout, not at their sum.
 */
export interface Deadline {
  readonly ms: number;
  readonly at: number;
  /** Aborts at the deadline, or when `cancel` does. */
  readonly signal: AbortSignal;
  /** Aborts when the caller gives the operation up before its deadline (a downstream cancel). */
  readonly cancel?: AbortSignal;
}

export function deadline(ms: number, cancel?: AbortSignal): Deadline {
  const timeout = AbortSignal.timeout(ms);
  const at = Date.now() + ms;
  return cancel ? { ms, at, signal: AbortSignal.any([timeout, cancel]), cancel } : { ms, at, signal: timeout };
}

export const remaining = (d: Deadline): number => Math.max(0, d.at - Date.now());

/**
 * `d` without its caller's cancel, for work other callers share (a connection's handshake). Its
 * signal is made on first use: a call on a warm connection never reads it, and pays for no timer.
 */
export function uncancellable(d: Deadline): Deadline {
  if (!d.cancel) return d;
  let signal: AbortSignal | undefined;
  return {
    ms: d.ms,
    at: d.at,
    get signal() {
      return (signal ??= AbortSignal.timeout(remaining(d)));
    },
  };
}

export const cancelledError = (): UpstreamError =>
  new UpstreamError('cancelled', 'the request was cancelled by its client');

/** The error an operation ends with: its caller's cancel, however the abort surfaced where it was noticed. */
export const settled = (e: unknown, d: Deadline): unknown => (d.cancel?.aborted ? cancelledError() : e);

/** Rethrows `e` as `settled` names it. */
export function rethrow(e: unknown, d: Deadline): never {
  throw settled(e, d);
}

/** `p`, or a cancellation as soon as `cancel` aborts. */
export function unlessCancelled<T>(p: Promise<T>, cancel: AbortSignal | undefined): Promise<T> {
  if (!cancel) return p;
  if (cancel.aborted) return Promise.reject(cancelledError());
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(cancelledError());
    cancel.addEventListener('abort', stop, { once: true });
    p.then(resolve, reject).finally(() => cancel.removeEventListener('abort', stop));
  });
}

/** `p`, or a timeout error when the deadline passes first (a cancellation when its caller cancels first). */
export function withTimeout<T>(p: Promise<T>, d: Deadline | number, what: string): Promise<T> {
  const ms = typeof d === 'number' ? d : remaining(d);
  const total = typeof d === 'number' ? d : d.ms;
  const timed = bounded(p, ms, () => new UpstreamError('timeout', `upstream timed out ${what} (${total} ms)`));
  return typeof d === 'number' ? timed : unlessCancelled(timed, d.cancel);
}
