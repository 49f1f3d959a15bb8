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
import type { RequestScope } from '../lib/scope.js';
import { originOf } from '../lib/url.js';
import type { ProtocolVersion } from '../lib/versions.js';
import type { Catalog } from './catalog.js';
import { readPage, readPointer, writePage, writePointer, type PageKey } from './edge.js';
import type { CacheHints } from './hints.js';
import { currentCatalog, peekCatalog } from './store.js';
import { upstreamConfigs } from './upstreams/config.js';
import { listMissing } from './upstreams/cold.js';

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
async function principalOf(cacheScope: CacheHints['cacheScope'], q: RequestScope): Promise<string> {
  if (cacheScope === 'public') return 'public';
  const digest = new Uint8Array(
    await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`principal/v1|${q.header('authorization') ?? ''}`)),
  );
  return [...digest.slice(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

async function fromEdge(
  q: RequestScope,
  version: ProtocolVersion,
  cursor: string | undefined,
): Promise<Listing | undefined> {
  const origin = originOf(q.url);
  const pointer = await readPointer(origin);
  if (!pointer) return undefined;
  const { generation, ttlMs, cacheScope } = pointer;
  const key: PageKey = {
    origin,
    scope: cacheScope,
    principal: await principalOf(cacheScope, q),
    generation,
    variant: version,
    cursor,
  };
  const json = await readPage(key);
  return json === undefined ? undefined : { json, generation, hints: { ttlMs, cacheScope } };
}

/**
 * Per catalog in this isolate: the Listing objects already made (stable, so
 * callers can memoise what they derive from one) and when the pointer was
 * last renewed. Each page goes to the edge cache when it is first made here.
 */
const made = new WeakMap<Catalog, { pages: Map<string, Listing>; pointerAt: number }>();

function renewPointer(q: RequestScope, catalog: Catalog, hints: CacheHints, state: { pointerAt: number }): void {
  const pointerMs = Math.max(1000, q.cfg.catalogRefreshMs);
  // Renewed at half its lifetime, so a colo with steady traffic always has one.
  const now = Date.now();
  if (now - state.pointerAt <= pointerMs / 2) return;
  state.pointerAt = now;
  q.waitUntil(writePointer(originOf(q.url), { generation: catalog.generation, ...hints }, pointerMs));
}

/** A page's name among its catalog's pages: revision and cursor. */
function pageId(version: ProtocolVersion, cursor: string | undefined): string {
  return cursor === undefined ? version : `${version}#${cursor}`;
}

/** A page this isolate already made for this catalog, or undefined. Synchronous: the warm path. */
function knownPage(q: RequestScope, version: ProtocolVersion, cursor: unknown, catalog: Catalog): Listing | undefined {
  if (catalog.provisional) return undefined;
  const state = made.get(catalog);
  if (!state) return undefined;
  // A cursor that is not a string names no page: build() gives it the error it deserves.
  if (cursor !== undefined && typeof cursor !== 'string') return undefined;
  const page = state.pages.get(pageId(version, cursor));
  if (page) renewPointer(q, catalog, page.hints, state);
  return page;
}

async function build(
  q: RequestScope,
  version: ProtocolVersion,
  rawCursor: unknown,
  catalog: Catalog,
): Promise<Listing> {
  const cursor = typeof rawCursor === 'string' ? rawCursor : undefined;
  const hints = catalog.cacheHints(q.cfg.listTtlMs);
  // Not a cursor at all: listPage throws the -32602 it deserves; nothing is remembered.
  if (catalog.provisional || (rawCursor !== undefined && cursor === undefined))
    return {
      json: await catalog.listPage(version, rawCursor, q.cfg.pageSize, q.secret),
      generation: catalog.generation,
      hints,
    };
  let state = made.get(catalog);
  if (!state) made.set(catalog, (state = { pages: new Map(), pointerAt: 0 }));
  renewPointer(q, catalog, hints, state);
  // A forged or stale cursor throws here, before anything is remembered.
  const json = await catalog.listPage(version, rawCursor, q.cfg.pageSize, q.secret);
  const page: Listing = { json, generation: catalog.generation, hints };
  state.pages.set(pageId(version, cursor), page);
  const key = async (): Promise<PageKey> => ({
    origin: originOf(q.url),
    scope: hints.cacheScope,
    principal: await principalOf(hints.cacheScope, q),
    generation: catalog.generation,
    variant: version,
    cursor,
  });
  q.waitUntil(key().then((k) => writePage(k, json)));
  return page;
}

/**
 * The page of this revision's shape at this cursor (the request's own
 * value, validated here), for the request `q`. A warm isolate answers
 * synchronously from memory (no promise at all: this is the hot path of
 * every list); see the header for the rest.
 */
export function listing(q: RequestScope, version: ProtocolVersion, cursor: unknown): Listing | Promise<Listing> {
  const warm = peekCatalog(q.env.PROMPTS, q.cfg.catalogRefreshMs, q.waitUntil);
  if (warm) {
    // Cold upstream path, first page only (a cursor belongs to the generation it was minted in).
    const catalog = cursor === undefined ? listMissing(q, warm, q.cfg.pageSize) : warm;
    if (catalog instanceof Promise)
      return catalog.then((c) => knownPage(q, version, cursor, c) ?? build(q, version, cursor, c));
    return knownPage(q, version, cursor, catalog) ?? build(q, version, cursor, catalog);
  }
  return cold(q, version, cursor);
}

async function cold(q: RequestScope, version: ProtocolVersion, cursor: unknown): Promise<Listing> {
  if (cursor === undefined || typeof cursor === 'string') {
    const hit = await fromEdge(q, version, cursor);
    if (hit) return hit;
  }
  // A cold isolate has neither the catalog nor the upstream list yet: read both at once.
  const [loaded] = await Promise.all([
    currentCatalog(q.env.PROMPTS, q.cfg.catalogRefreshMs, q.waitUntil),
    cursor === undefined && upstreamConfigs(q.env),
  ]);
  const catalog = cursor === undefined ? await listMissing(q, loaded, q.cfg.pageSize) : loaded;
  return knownPage(q, version, cursor, catalog) ?? build(q, version, cursor, catalog);
}
