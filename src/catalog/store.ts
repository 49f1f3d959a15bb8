/**
 * The catalog in Workers KV, and the isolate's compiled copy of it.
 *
 * The only module that touches the PROMPTS namespace. Layout (docs/storage-schema.md):
 *   catalog/head            whole current snapshot: one read warms a cold isolate
 *   catalog/generation      current generation number: a tiny background check
 *   catalog/snapshots/<g>   immutable snapshot per generation
 *
 * Hot path: a warm isolate does no KV read at all. Every `refreshMs` it
 * checks `catalog/generation` in the background (waitUntil), and the
 * generation a stream at its colo announced (edge.ts), and, only when one of
 * them moved, loads the immutable snapshot of the new generation. A cold
 * isolate does exactly one blocking read, never one per prompt.
 *
 * An isolate that sat idle is not warm: once its last check is overdue
 * (twice `refreshMs`, at least 1 s), the next call waits for the check, up
 * to OVERDUE_WAIT_MS, instead of serving what it held before the idle
 * spell (docs/live-updates.md, "Fresh after the notification").
 */
import { Catalog } from './catalog.js';
import type { CatalogSnapshot } from './types.js';
import { log } from '../lib/log.js';
import type { Config } from '../lib/config.js';
import type { RequestScope } from '../lib/scope.js';
import { originOf } from '../lib/url.js';
import { readAnnounced } from './edge.js';
import { bounded } from '../lib/bounded.js';

export const KV_KEYS = {
  head: 'catalog/head',
  generation: 'catalog/generation',
  snapshot: (generation: number) => `catalog/snapshots/${generation}`,
} as const;

interface Cached {
  catalog: Catalog;
  checkedAt: number;
  /** The generation check under way, if one is, and when it started. */
  refreshing: Promise<void> | undefined;
  refreshStarted: number;
}

/**
 * A check older than this is taken for lost (the request whose waitUntil ran it was cancelled
 * first, and its promise will never settle) and a new one starts: the runtime keeps waitUntil
 * work at most 30 s after the response.
 */
const LOST_REFRESH_MS = 30_000;

/** The longest a call waits for an overdue check before it is served what the isolate holds. */
export const OVERDUE_WAIT_MS = 1_000;

/** How old the last check may be before a call waits for the next one instead of starting it in the background. */
export const overdueMs = (refreshMs: number): number => Math.max(2 * refreshMs, 1_000);

const EMPTY: CatalogSnapshot = { generation: 0, updatedAt: new Date(0).toISOString(), prompts: [] };
const byNamespace = new WeakMap<KVNamespace, Cached>();
const loading = new WeakMap<KVNamespace, Promise<Catalog>>();

/** A cold isolate's one read: the whole current snapshot. */
async function loadHead(kv: KVNamespace): Promise<Catalog> {
  return adoptSnapshot(kv, (await kv.get<CatalogSnapshot>(KV_KEYS.head, 'json')) ?? EMPTY);
}

/** Keeps the newer of what we hold and what we were given (generations only move forward). */
function adopt(kv: KVNamespace, next: Cached): void {
  const cur = byNamespace.get(kv);
  if (!cur || next.catalog.generation >= cur.catalog.generation) byNamespace.set(kv, next);
}

/**
 * What reading the catalog needs of a request (a RequestScope is one): the namespace, how often to
 * look again, background work, and the URL, whose origin names this colo's edge-cache entries.
 */
export interface CatalogQuery {
  readonly env: Pick<Env, 'PROMPTS'>;
  readonly cfg: Pick<Config, 'catalogRefreshMs'>;
  readonly waitUntil: RequestScope['waitUntil'];
  readonly url: string;
}

/**
 * The generations worth loading, newest first: KV's and the colo's announced one. KV may answer
 * its hot generation key from a cache far from the write for a minute; a stream here that
 * announced a change read that generation's own key, so this isolate can too
 * (docs/live-updates.md, "Fresh after the notification").
 */
async function newerGenerations(kv: KVNamespace, origin: string, served: number): Promise<number[]> {
  const [stored, announced] = await Promise.all([readGeneration(kv), readAnnounced(origin)]);
  const found = [stored, announced ?? 0].filter((n) => Number.isInteger(n) && n > served);
  return [...new Set(found)].sort((a, b) => b - a);
}

async function refresh(kv: KVNamespace, cached: Cached, origin: string): Promise<void> {
  try {
    // A snapshot not readable at this edge (yet) falls through to the next: an announced one that
    // never lands (a namespace whose generations started over) must not hold back KV's.
    for (const g of await newerGenerations(kv, origin, cached.catalog.generation)) {
      if (await loadSnapshot(kv, g)) break;
    }
  } catch (e) {
    log.error('catalog refresh failed', { error: String(e) });
  } finally {
    cached.checkedAt = Date.now();
    cached.refreshing = undefined;
  }
}

/**
 * The isolate's catalog without any blocking KV read, or undefined when this
 * isolate has none yet or its last check is overdue (currentCatalog then
 * waits for it). Starts the generation check when due.
 */
export function peekCatalog(q: CatalogQuery): Catalog | undefined {
  const kv = q.env.PROMPTS;
  const cached = byNamespace.get(kv);
  if (!cached) return undefined;
  const now = Date.now();
  const age = now - cached.checkedAt;
  if (age < q.cfg.catalogRefreshMs) return cached.catalog;
  if (!cached.refreshing || now - cached.refreshStarted > LOST_REFRESH_MS) {
    cached.refreshStarted = now;
    q.waitUntil((cached.refreshing = refresh(kv, cached, originOf(q.url))));
  }
  return age < overdueMs(q.cfg.catalogRefreshMs) ? cached.catalog : undefined;
}

/** The catalog to serve now. Never blocks on KV once the isolate is warm and its last check recent. */
export async function currentCatalog(q: CatalogQuery): Promise<Catalog> {
  const warm = peekCatalog(q);
  if (warm) return warm;
  const kv = q.env.PROMPTS;
  const overdue = byNamespace.get(kv);
  if (overdue) {
    // refresh() never rejects; a late one still serves its snapshot to later calls when it lands.
    if (overdue.refreshing) await bounded(overdue.refreshing, OVERDUE_WAIT_MS).catch(() => undefined);
    return byNamespace.get(kv)!.catalog;
  }
  let p = loading.get(kv);
  if (!p) {
    p = loadHead(kv).finally(() => loading.delete(kv));
    loading.set(kv, p);
  }
  return p;
}

/** The published generation (0 before the first publish). */
export async function readGeneration(kv: KVNamespace): Promise<number> {
  return Number(await kv.get(KV_KEYS.generation)) || 0;
}

/** The catalog this isolate serves, as it is (no refresh is started), or undefined before it has one. */
export function servedCatalog(kv: KVNamespace): Catalog | undefined {
  return byNamespace.get(kv)?.catalog;
}

/** The generation this isolate serves, or undefined before it has a catalog. */
export function servedGeneration(kv: KVNamespace): number | undefined {
  return byNamespace.get(kv)?.catalog.generation;
}

/** Reads one generation's snapshot and serves it; false when KV has none under that generation here (yet). */
export async function loadSnapshot(kv: KVNamespace, generation: number): Promise<boolean> {
  const snap = await kv.get<CatalogSnapshot>(KV_KEYS.snapshot(generation), 'json');
  if (snap) adoptSnapshot(kv, snap);
  return snap !== null;
}

/**
 * Serves a snapshot this isolate received directly from the writer (the
 * cold upstream path), without waiting for KV to carry it here. Newer
 * generations only, as always.
 */
export function adoptSnapshot(kv: KVNamespace, snap: CatalogSnapshot): Catalog {
  adopt(kv, { catalog: new Catalog(snap), checkedAt: Date.now(), refreshing: undefined, refreshStarted: 0 });
  return byNamespace.get(kv)!.catalog;
}
