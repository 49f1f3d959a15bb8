/**
 * A stream's isolate catching up with the change it is about to announce
 * (docs/live-updates.md, "Fresh after the notification"): it loads the
 * announced generation's snapshot before the notification goes out, and
 * tells its colo's other isolates of the generation through the edge cache
 * (edge.ts), which they read at their next refresh (store.ts). And the
 * other way round: a stream's keepalive asks for the newest change announced
 * as of what this isolate serves, so a stream that never heard of it can
 * reconnect for it. `streamHooks` hands both to every stream kind.
 */
import { bounded } from '../lib/bounded.js';
import { log } from '../lib/log.js';
import type { RequestScope } from '../lib/scope.js';
import type { StreamHooks } from '../session/watch.js';
import { originOf } from '../lib/url.js';
import { writeAnnounced } from './edge.js';
import { loadSnapshot, peekCatalog, servedGeneration, type CatalogQuery } from './store.js';

/** The newest generation this isolate announced to its colo (catchUp), per namespace. */
const announcedHere = new WeakMap<KVNamespace, number>();
/** Generations this isolate is reading because a change event named them (catchUp), per namespace. */
const catching = new WeakMap<KVNamespace, Map<number, Promise<void>>>();
/** The longest a stream holds a change notification while its isolate reads the catalog it announces. */
export const CATCH_UP_MAX_MS = 2_000;

/**
 * Makes this isolate serve at least `generation` before a stream tells its client of that change
 * (docs/live-updates.md, "Fresh after the notification"). A client told of a change lists at once,
 * possibly on the isolate that holds its stream, which would otherwise still serve the catalog from
 * before it: the isolate checks `catalog/generation` only every `refreshMs`, and at a distant
 * location KV may answer that hot key from its cache for a minute or more. The generation's
 * snapshot key is new and immutable, so reading it by name gets the published value. Undefined
 * (no promise) when this isolate is already there. Never rejects: a read
 * that fails or takes longer than CATCH_UP_MAX_MS lets the notification go out as before.
 *
 * The generation is also announced to this colo (edge.ts), once per isolate, so that the colo's
 * other isolates, where the client's next call may land, load it at their next refresh rather
 * than when KV's cache there expires.
 */
export function catchUp(
  q: Pick<CatalogQuery, 'env' | 'url' | 'waitUntil'>,
  generation: number,
): Promise<void> | undefined {
  const kv = q.env.PROMPTS;
  if ((announcedHere.get(kv) ?? 0) < generation) {
    announcedHere.set(kv, generation);
    q.waitUntil(writeAnnounced(originOf(q.url), generation));
  }
  if ((servedGeneration(kv) ?? -1) >= generation) return undefined;
  let reads = catching.get(kv);
  if (!reads) catching.set(kv, (reads = new Map<number, Promise<void>>()));
  let read = reads.get(generation);
  if (!read) {
    const all = reads;
    read = catchUpOnce(kv, generation).finally(() => all.delete(generation));
    reads.set(generation, read);
  }
  return read;
}

async function catchUpOnce(kv: KVNamespace, generation: number): Promise<void> {
  try {
    if (!(await bounded(loadSnapshot(kv, generation), CATCH_UP_MAX_MS)))
      log.warn('catalog catch-up: the announced snapshot is not readable here yet', { generation });
  } catch (e) {
    // Failed or late (a late read still serves its snapshot when it lands).
    log.warn('catalog catch-up failed', { generation, error: String(e) });
  }
}

/**
 * The newest generation announced as of the catalog this isolate serves, for a stream's keepalive
 * (session/watch.ts): a stream behind it lost a delivery. Not the served generation itself: one made
 * without a notification (an upstream going stale) must not send every stream to its shard. An
 * isolate that serves requests checks KV every `refreshMs` anyway; one that only holds streams
 * checks every three keepalives, and at least once a minute: one small KV read per isolate (once a
 * minute by default), not per stream.
 */
function servedForStreams(t: RequestScope): number | undefined {
  const everyMs = Math.max(t.cfg.catalogRefreshMs, Math.min(SWEEP_CHECK_MS, 3 * t.cfg.sseKeepaliveMs));
  // Undefined while a check long overdue is under way: the next keepalive asks again.
  return peekCatalog({ env: t.env, url: t.url, waitUntil: t.waitUntil, cfg: { catalogRefreshMs: everyMs } })?.snapshot
    .announced;
}

/** The longest an isolate holding only streams goes without checking the catalog generation (unless CATALOG_REFRESH_MS is longer). */
const SWEEP_CHECK_MS = 60_000;

/**
 * What a stream of either kind gets from the request that opened it (session/watch.ts). A stream may
 * trail `served` for the coalescing window, in which the change is not sent yet, and two keepalive
 * intervals before its socket is taken for lost.
 */
export function streamHooks(t: RequestScope): StreamHooks {
  return {
    catchUp: (generation) => catchUp(t, generation),
    served: () => servedForStreams(t),
    lagGraceMs: t.cfg.notifyCoalesceMs + 2 * t.cfg.sseKeepaliveMs,
    clientGone: t.signal,
  };
}
