/**
 * One prompt-list page, from the cheapest place that has it:
 *   1. this isolate's compiled catalog (a warm isolate: no I/O at all);
 *   2. the edge cache, for an isolate with no catalog yet: the colo's
 *      pointer names the generation, and the page is looked up under
 *      (scope, principal, generation, revision, cursor), with no KV read;
 *   3. KV (one read of the head snapshot), and the page is then stored in
 *      the edge cache for the isolates that come after.
 * POST prompts/list (both eras) and GET /prompts are all served here.
 *
 * Provisional catalogs (the cold upstream merge, which shares its base's
 * generation) are never stored: a page must mean exactly its generation.
 */
import type { Config } from '../lib/config.js';
import type { ProtocolVersion } from '../lib/versions.js';
import type { Catalog } from './catalog.js';
import { readPage, readPointer, writePage, writePointer, type PageKey } from './edge.js';
import type { CacheHints } from './hints.js';
import { currentCatalog, peekCatalog } from './store.js';
import { upstreamConfigs } from './upstreams/config.js';
import { listMissing } from './upstreams/object.js';

export interface ListingQuery {
  readonly env: Env;
  readonly cfg: Config;
  readonly secret: string;
  readonly waitUntil: (p: Promise<unknown>) => void;
  readonly version: ProtocolVersion;
  readonly cursor: unknown;
  /** The request's origin (edge-cache keys live under the gateway's own host); read only when the edge cache is used. */
  readonly origin: () => string;
  /** The caller's credentials, read only for private pages, and only ever used as a digest in their keys. */
  readonly authorization: () => string | undefined;
}

export interface Listing {
  readonly json: string;
  readonly generation: number;
  readonly hints: CacheHints;
}

/** The page with its cache hints in front, as modern list results and GET /prompts carry them. */
export function withHints(page: Listing): string {
  return `{"ttlMs":${page.hints.ttlMs},"cacheScope":"${page.hints.cacheScope}",${page.json.slice(1)}`;
}

/** Private pages are keyed by a digest of the caller's credentials; not memoised, so no token is kept in memory. */
async function principalOf(scope: CacheHints['cacheScope'], authorization: () => string | undefined): Promise<string> {
  if (scope === 'public') return 'public';
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`principal/v1|${authorization() ?? ''}`)));
  return [...digest.slice(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

async function fromEdge(q: ListingQuery, cursor: string | undefined): Promise<Listing | undefined> {
  const origin = q.origin();
  const pointer = await readPointer(origin);
  if (!pointer) return undefined;
  const { generation, ttlMs, cacheScope } = pointer;
  const key: PageKey = { origin, scope: cacheScope, principal: await principalOf(cacheScope, q.authorization), generation, variant: q.version, cursor };
  const json = await readPage(key);
  return json === undefined ? undefined : { json, generation, hints: { ttlMs, cacheScope } };
}

/**
 * Per catalog in this isolate: the Listing objects already made (stable, so
 * callers can memoise what they derive from one) and when the pointer was
 * last renewed. Each page goes to the edge cache when it is first made here.
 */
const made = new WeakMap<Catalog, { pages: Map<string, Listing>; pointerAt: number }>();

function renewPointer(q: ListingQuery, catalog: Catalog, hints: CacheHints, state: { pointerAt: number }): void {
  const pointerMs = Math.max(1000, q.cfg.catalogRefreshMs);
  // Renewed at half its lifetime, so a colo with steady traffic always has one.
  const now = Date.now();
  if (now - state.pointerAt <= pointerMs / 2) return;
  state.pointerAt = now;
  q.waitUntil(writePointer(q.origin(), { generation: catalog.generation, ...hints }, pointerMs));
}

/** A page this isolate already made for this catalog, or undefined. Synchronous: the warm path. */
function knownPage(q: ListingQuery, catalog: Catalog): Listing | undefined {
  if (catalog.provisional) return undefined;
  const state = made.get(catalog);
  if (!state) return undefined;
  const cursor = q.cursor;
  const page = state.pages.get(cursor === undefined ? q.version : typeof cursor === 'string' ? `${q.version}#${cursor}` : '');
  if (page) renewPointer(q, catalog, page.hints, state);
  return page;
}

async function build(q: ListingQuery, catalog: Catalog): Promise<Listing> {
  const cursor = typeof q.cursor === 'string' ? q.cursor : undefined;
  const hints = catalog.cacheHints(q.cfg.listTtlMs);
  // Not a cursor at all: listPage throws the -32602 it deserves; nothing is remembered.
  if (catalog.provisional || (q.cursor !== undefined && cursor === undefined))
    return { json: await catalog.listPage(q.version, q.cursor, q.cfg.pageSize, q.secret), generation: catalog.generation, hints };
  let state = made.get(catalog);
  if (!state) made.set(catalog, (state = { pages: new Map(), pointerAt: 0 }));
  renewPointer(q, catalog, hints, state);
  // A forged or stale cursor throws here, before anything is remembered.
  const json = await catalog.listPage(q.version, q.cursor, q.cfg.pageSize, q.secret);
  const page: Listing = { json, generation: catalog.generation, hints };
  state.pages.set(cursor === undefined ? q.version : `${q.version}#${cursor}`, page);
  const key = async (): Promise<PageKey> => ({
    origin: q.origin(),
    scope: hints.cacheScope,
    principal: await principalOf(hints.cacheScope, q.authorization),
    generation: catalog.generation,
    variant: q.version,
    cursor,
  });
  q.waitUntil(key().then((k) => writePage(k, json)));
  return page;
}

/**
 * The page for this query. A warm isolate answers synchronously from memory
 * (no promise at all: this is the hot path of every list); see the header
 * for the rest.
 */
export function listing(q: ListingQuery): Listing | Promise<Listing> {
  const warm = peekCatalog(q.env.PROMPTS, q.cfg.catalogRefreshMs, q.waitUntil);
  if (warm) {
    // Cold upstream path, first page only (a cursor belongs to the generation it was minted in).
    const catalog = q.cursor === undefined ? listMissing(q.env, warm, q.cfg.pageSize, q.waitUntil) : warm;
    if (catalog instanceof Promise) return catalog.then((c) => knownPage(q, c) ?? build(q, c));
    return knownPage(q, catalog) ?? build(q, catalog);
  }
  return cold(q);
}

async function cold(q: ListingQuery): Promise<Listing> {
  if (q.cursor === undefined || typeof q.cursor === 'string') {
    const hit = await fromEdge(q, q.cursor);
    if (hit) return hit;
  }
  // A cold isolate has neither the catalog nor the upstream list yet: read both at once.
  const [loaded] = await Promise.all([currentCatalog(q.env.PROMPTS, q.cfg.catalogRefreshMs, q.waitUntil), q.cursor === undefined && upstreamConfigs(q.env)]);
  const catalog = q.cursor === undefined ? await listMissing(q.env, loaded, q.cfg.pageSize, q.waitUntil) : loaded;
  return knownPage(q, catalog) ?? build(q, catalog);
}
