/**
 * One prompt-list page of the caller's view (catalog/views.ts), from the
 * cheapest place that has it:
 *   1. this isolate's compiled catalog (a warm isolate: no I/O at all);
 *   2. the edge cache, for an isolate with no catalog yet: the colo's
 *      pointer names the generation (and the groups the catalog uses, for
 *      the view key), and the page is looked up under (scope, principal,
 *      view, generation, revision, cursor), with no KV read;
 *   3. KV (one read of the head snapshot), and the page is then stored in
 *      the edge cache for the isolates that come after.
 * POST prompts/list (both eras) and GET /prompts are all served here.
 * Pages are kept per view, never per token: principals who see the same
 * prompts share them.
 *
 * The layer that answered goes on the request's record (`promptgate.cache`).
 *
 * Provisional catalogs (the cold upstream merge, which shares its base's
 * generation) are never stored: a page must mean exactly its generation.
 */
import type { RequestScope } from '../lib/scope.js';
import { sha256Hex } from '../lib/hash.js';
import { originOf } from '../lib/url.js';
import type { ProtocolVersion } from '../lib/versions.js';
import { PROMPTS, type ListKind, type View } from './catalog.js';
import type { Compiled } from './compiled.js';
import { readPage, readPointer, writePage, writePointer, type PageKey, type Pointer } from './edge.js';
import { viewHints, type CacheHints } from './hints.js';
import { computeViewKey } from './views.js';
import { BoundedMap } from '../lib/memo.js';
import { currentCatalog, peekCatalog } from './store.js';
import { upstreamConfigs } from './upstreams/config.js';
import { listMissing } from './upstreams/cold.js';

export interface Listing {
  readonly json: string;
  readonly generation: number;
  readonly hints: CacheHints;
  /** The view key the page was made for (ETags differ per view). */
  readonly view: string;
}

/** The page with its cache hints in front, as modern list results and GET /prompts carry them. */
export function withHints(page: Listing): string {
  return `{"ttlMs":${page.hints.ttlMs},"cacheScope":"${page.hints.cacheScope}",${page.json.slice(1)}`;
}

const hex16 = (text: string) => sha256Hex(text, 16);

/**
 * Pages whose content is private (an upstream said so) are also keyed by the caller: its principal
 * id once access control names one, else a digest of its credentials. Not memoised, so no token is
 * kept in memory.
 */
function callerOf(contentScope: CacheHints['cacheScope'], q: RequestScope): Promise<string> | string {
  if (contentScope === 'public') return 'public';
  const p = q.principal;
  return hex16(p && p.method !== 'none' ? `principal/v2|${p.id}` : `principal/v1|${q.header('authorization') ?? ''}`);
}

const viewDigests = new BoundedMap<string, string>(1_000);

/**
 * The view's path segment in edge-cache keys: `-` for a catalog without groups, else a digest (so
 * group names never appear in a URL), also for the empty key of a grouped one, which is not everyone's.
 */
async function viewSegment(key: string, grouped: boolean): Promise<string> {
  if (!grouped) return '-';
  let d = viewDigests.get(key);
  if (!d) viewDigests.set(key, (d = await hex16(`view/v1|${key}`)));
  return d;
}

async function fromEdge(
  q: RequestScope,
  version: ProtocolVersion,
  cursor: string | undefined,
  kind: ListKind,
): Promise<Listing | undefined> {
  const origin = originOf(q.url);
  const pointer = await readPointer(origin);
  if (!pointer) return undefined;
  const { generation, ttlMs, cacheScope } = pointer;
  const grouped = (pointer.groups?.length ?? 0) > 0;
  const view = grouped ? computeViewKey(new Set(pointer.groups), q.principal) : '';
  const hints = viewHints({ ttlMs, cacheScope }, grouped);
  const key: PageKey = {
    origin,
    scope: hints.cacheScope,
    principal: await callerOf(cacheScope, q),
    view: await viewSegment(view, grouped),
    generation,
    variant: variantOf(kind, version),
    cursor,
  };
  const json = await readPage(key);
  return json === undefined ? undefined : { json, generation, hints, view };
}

/**
 * Per view in this isolate: the Listing objects already made (stable, so
 * callers can memoise what they derive from one), and, shared by the views
 * of one catalog, when the pointer was last renewed. Each page goes to the
 * edge cache when it is first made here.
 */
interface Made {
  readonly pages: Map<string, Listing>;
  readonly pointer: { at: number };
}
const made = new WeakMap<View, Made>();
const pointers = new WeakMap<Compiled, { at: number }>();

function renewPointer(q: RequestScope, view: View, state: Made): void {
  const pointerMs = Math.max(1000, q.cfg.catalogRefreshMs);
  // Renewed at half its lifetime, so a colo with steady traffic always has one.
  const now = Date.now();
  if (now - state.pointer.at <= pointerMs / 2) return;
  state.pointer.at = now;
  const groups = view.compiled.groups;
  const pointer: Pointer = { generation: view.generation, ...view.contentHints(q.cfg.listTtlMs) };
  if (groups.size) pointer.groups = [...groups].sort();
  q.waitUntil(writePointer(originOf(q.url), pointer, pointerMs));
}

/** A page's shape among its generation's pages in the edge cache: its list kind and revision (prompts: the revision alone). */
const variantOf = (kind: ListKind, version: ProtocolVersion): string => (kind.id ? `${kind.id}|${version}` : version);

/** A page's name among its catalog's pages: kind, revision and cursor. */
function pageId(kind: ListKind, version: ProtocolVersion, cursor: string | undefined): string {
  const variant = variantOf(kind, version);
  return cursor === undefined ? variant : `${variant}#${cursor}`;
}

/** A page this isolate already made for this view, or undefined. Synchronous: the warm path. */
function knownPage(
  q: RequestScope,
  version: ProtocolVersion,
  cursor: unknown,
  view: View,
  kind: ListKind,
): Listing | undefined {
  if (view.provisional) return undefined;
  const state = made.get(view);
  if (!state) return undefined;
  // A cursor that is not a string names no page: build() gives it the error it deserves.
  if (cursor !== undefined && typeof cursor !== 'string') return undefined;
  const page = state.pages.get(pageId(kind, version, cursor));
  if (page) renewPointer(q, view, state);
  return page;
}

function stateOf(view: View): Made {
  let state = made.get(view);
  if (!state) {
    let pointer = pointers.get(view.compiled);
    if (!pointer) pointers.set(view.compiled, (pointer = { at: 0 }));
    made.set(view, (state = { pages: new Map(), pointer }));
  }
  return state;
}

async function build(
  q: RequestScope,
  version: ProtocolVersion,
  rawCursor: unknown,
  view: View,
  kind: ListKind,
): Promise<Listing> {
  const cursor = typeof rawCursor === 'string' ? rawCursor : undefined;
  const hints = view.cacheHints(q.cfg.listTtlMs);
  const { generation, key: viewKey } = view;
  // Not a cursor at all: listPage throws the -32602 it deserves; nothing is remembered.
  if (view.provisional || (rawCursor !== undefined && cursor === undefined))
    return {
      json: await view.listPage(version, rawCursor, q.cfg.pageSize, q.secret, kind),
      generation,
      hints,
      view: viewKey,
    };
  const state = stateOf(view);
  renewPointer(q, view, state);
  // A forged or stale cursor, or one from another view, throws here, before anything is remembered.
  const json = await view.listPage(version, rawCursor, q.cfg.pageSize, q.secret, kind);
  const page: Listing = { json, generation, hints, view: viewKey };
  state.pages.set(pageId(kind, version, cursor), page);
  const content = view.contentHints(q.cfg.listTtlMs);
  const key = async (): Promise<PageKey> => ({
    origin: originOf(q.url),
    scope: hints.cacheScope,
    principal: await callerOf(content.cacheScope, q),
    view: await viewSegment(viewKey, view.compiled.groups.size > 0),
    generation,
    variant: variantOf(kind, version),
    cursor,
  });
  q.waitUntil(key().then((k) => writePage(k, json)));
  return page;
}

/**
 * The page of this revision's shape at this cursor (the request's own
 * value, validated here) of a list kind (prompts by default), for the request `q`. A warm isolate answers
 * synchronously from memory (no promise at all: this is the hot path of
 * every list); see the header for the rest.
 */
export function listing(
  q: RequestScope,
  version: ProtocolVersion,
  cursor: unknown,
  kind: ListKind = PROMPTS,
): Listing | Promise<Listing> {
  const warm = peekCatalog(q.env.PROMPTS, q.cfg.catalogRefreshMs, q.waitUntil);
  if (warm) {
    // Cold upstream path, first page only (a cursor belongs to the generation it was minted in).
    const catalog = cursor === undefined ? listMissing(q, warm, q.cfg.pageSize) : warm;
    if (catalog instanceof Promise)
      return catalog.then((c) => {
        q.record.cache = 'isolate';
        const view = c.viewFor(q.principal);
        return knownPage(q, version, cursor, view, kind) ?? build(q, version, cursor, view, kind);
      });
    const view = catalog.viewFor(q.principal);
    q.record.cache = 'isolate';
    return knownPage(q, version, cursor, view, kind) ?? build(q, version, cursor, view, kind);
  }
  return cold(q, version, cursor, kind);
}

async function cold(q: RequestScope, version: ProtocolVersion, cursor: unknown, kind: ListKind): Promise<Listing> {
  if (cursor === undefined || typeof cursor === 'string') {
    const hit = await fromEdge(q, version, cursor, kind);
    if (hit) {
      q.record.cache = 'edge';
      return hit;
    }
  }
  q.record.cache = 'kv';
  // A cold isolate has neither the catalog nor the upstream list yet: read both at once.
  const [loaded] = await Promise.all([
    currentCatalog(q.env.PROMPTS, q.cfg.catalogRefreshMs, q.waitUntil),
    cursor === undefined && upstreamConfigs(q.env),
  ]);
  const catalog = cursor === undefined ? await listMissing(q, loaded, q.cfg.pageSize) : loaded;
  const view = catalog.viewFor(q.principal);
  return knownPage(q, version, cursor, view, kind) ?? build(q, version, cursor, view, kind);
}
