/**
 * When an isolate's tally goes to the UsageStore. The first count after a flush arms the next one,
 * USAGE_FLUSH_MS later, in the background of the request that counted it (waitUntil); there is one
 * armed flush per isolate at a time, never one per request, and an idle isolate arms nothing.
 *
 * Why counts are exact within one flush interval: a count enters the tally synchronously when its
 * response is ready. Either a flush is armed then (it takes the tally, this count included, at most
 * USAGE_FLUSH_MS later), or none is and this count arms one. A flush disarms as it takes the tally,
 * so a count made during its store call arms the next. A failed store call (one that throws, or does
 * not answer within STORE_CALL_MS) keeps its batch, under its id, and resends it whole: a few times
 * more in the same background task (an isolate that gets no further request must not keep its
 * counts), then with the next flush, which the isolate's next request of any kind arms. The store applies each id
 * once, so a batch whose answer was lost after it landed does not count twice, and a batch is never
 * given a new id: past MAX_RETAINED kept batches, new counts wait in the tally instead of becoming
 * one. Nothing is doubled, and nothing is dropped while the isolate lives; batches still kept when
 * the runtime evicts an isolate that got no further request (the store failed every resend) go with it.
 */
import { bounded } from '../lib/bounded.js';
import { log } from '../lib/log.js';
import { datasetOf, writeUsageEvents } from './analytics.js';
import type { SentBatch } from './store.js';
import { usageStore } from './stub.js';
import { Tally } from './tally.js';

/** Failed batches kept for resending (each is bounded); past this many, counts stay in the tally. */
const MAX_RETAINED = 32;
/**
 * Resends of a failed flush within its background task, after min(USAGE_FLUSH_MS, 2 s), then twice
 * that, each only if it can still end inside the task's budget; what is left goes with the next flush.
 */
const RETRIES = 3;
const RETRY_MAX_FIRST_MS = 2_000;
/**
 * The runtime may cancel a waitUntil 30 s after its response. Resends stop being scheduled this long
 * after arming, leaving the last store call 5 s, so a batch is never mid-send when the task is cut.
 */
const TASK_BUDGET_MS = 25_000;
/**
 * One store call's bound: a store that hangs (overloaded, or held by its hourly prune) is a failure
 * like any other, so its batches are retained for the resend instead of being lost with the task.
 * A late call the store still applies is harmless: it drops a batch id it has seen (store.ts).
 */
const STORE_CALL_MS = 5_000;

/** The wait before resend `attempt` (0-based), or undefined when none is due: past RETRIES, or past `deadline`. */
export function resendDelay(retryMs: number, attempt: number, now: number, deadline: number): number | undefined {
  if (retryMs <= 0 || attempt >= RETRIES) return undefined;
  const wait = retryMs * 2 ** attempt;
  return now + wait <= deadline ? wait : undefined;
}

/** This isolate's name in batch ids (with a sequence number, unique per flush); random values only in a handler. */
let isolate: string | undefined;
let sequence = 0;
const nextId = () => `${(isolate ??= crypto.randomUUID())}:${++sequence}`;

/** What this isolate counted since the last flush (count.ts adds to it). */
export let tally = new Tally();
/** Batches whose store call failed, resent whole with the next flush. */
let retained: SentBatch[] = [];
/** Batches in a store call now (kept again if it fails). */
let sending = 0;
let armed = false;
/** When an armed flush is overdue: the runtime may cancel a waitUntil (30 s after the response), and a
 * flush that never ran must not keep this isolate from arming another forever. */
let overdue = 0;
/** How long past its time an armed flush is given up on. */
const GRACE_MS = 30_000;

/**
 * Arms a flush when batches a failed one kept are waiting and none is armed: any request does this,
 * counted or not, so kept counts leave with the next request an isolate gets (an isolate serving only
 * lists and pages would otherwise hold them until it was evicted). A check and nothing else when none wait.
 */
export function armIfKept(env: Env, flushMs: number, waitUntil: (p: Promise<unknown>) => void): void {
  if (retained.length > 0) arm(env, flushMs, waitUntil);
}

/** Arms the next flush if none is armed. */
export function arm(env: Env, flushMs: number, waitUntil: (p: Promise<unknown>) => void): void {
  if (armed && Date.now() < overdue) return;
  armed = true;
  const now = Date.now();
  overdue = now + flushMs + GRACE_MS;
  const deadline = now + TASK_BUDGET_MS;
  waitUntil(sleep(flushMs).then(() => flush(env, Math.min(flushMs, RETRY_MAX_FIRST_MS), 0, deadline)));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends the tally and any retained batches in one store call; also to Analytics Engine when bound.
 * `retryMs`: on failure, try again after this long (doubling, RETRIES times, none past `deadline`);
 * 0 leaves it to the next flush.
 */
export async function flush(env: Env, retryMs = 0, attempt = 0, deadline = Infinity): Promise<void> {
  // Only the armed flush disarms: a resend that did would let the next count arm a second chain of
  // flushes beside the one already armed, and under a failing store the chains would multiply.
  if (attempt === 0) armed = false;
  const sends = retained;
  retained = [];
  // Batches another flush has in a store call still count towards the cap: they come back on failure.
  if (!tally.empty && sends.length + sending < MAX_RETAINED) {
    sends.push({ id: nextId(), batch: tally.batch() });
    tally = new Tally();
  }
  if (sends.length === 0) return;
  sending += sends.length;
  try {
    await bounded(usageStore(env).add(sends), Math.max(0, Math.min(STORE_CALL_MS, deadline + 5_000 - Date.now())));
  } catch (e) {
    // With what another failed flush kept meanwhile: neither overwrites the other.
    retained = [...sends, ...retained];
    const wait = resendDelay(retryMs, attempt, Date.now(), deadline);
    const again = wait !== undefined;
    log.warn('usage flush failed; resending', { batches: retained.length, again, error: String(e) });
    sending -= sends.length;
    if (again) {
      await sleep(wait);
      return flush(env, retryMs, attempt + 1, deadline);
    }
    return;
  }
  sending -= sends.length;
  // After the store took the batch, so a resent batch is never written to AE twice. AE is best effort.
  const dataset = datasetOf(env);
  try {
    if (dataset)
      writeUsageEvents(
        dataset,
        sends.flatMap((s) => s.batch.usage),
      );
  } catch (e) {
    log.warn('usage events not written to Analytics Engine', { error: String(e) });
  }
}

/** Whether counts are waiting for a flush (tests wait on the store, not on this). */
export function pending(): boolean {
  return armed || retained.length > 0 || !tally.empty;
}
