/**
 * The list pages this isolate already made (listing.ts), per view: found again synchronously, so
 * a warm list creates no promise at all, and written to the edge cache once when first made,
 * with the colo's pointer renewed beside them so isolates without a catalog can find them.
 * Provisional views (the cold upstream merge) are never remembered: a page must mean exactly its
 * generation.
 */
import type { RequestScope } from '../lib/scope.js';
import { originOf } from '../lib/url.js';
import type { ProtocolVersion } from '../lib/versions.js';
import type { ListKind, View } from './catalog.js';
import type { Compiled } from './compiled.js';
import { writePage, writePointer, type PageKey, type Pointer } from './edge.js';
import type { CacheHints } from './hints.js';
import { callerOf, pageVariant, variantOf, viewSegment } from './listing-keys.js';

export interface Listing {
  readonly json: string;
  readonly generation: number;
  readonly hints: CacheHints;
  /** The view key the page was made for (ETags differ per view). */
  readonly view: string;
  /**
   * A page of a provisional view (the cold upstream merge): it shares its base's generation but
   * not its bytes, so it is kept nowhere and HTTP caches must revalidate it (routes/listing.ts).
   */
  readonly provisional?: boolean;
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

/** A page's name among its catalog's pages: kind, revision and cursor. */
function pageId(kind: ListKind, version: ProtocolVersion, cursor: string | undefined): string {
  const variant = variantOf(kind, version);
  return cursor === undefined ? variant : `${variant}#${cursor}`;
}

/** A page this isolate already made for this view, or undefined. Synchronous: the warm path. */
export function knownPage(
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

export async function build(
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
      provisional: view.provisional,
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
    variant: await pageVariant(q, kind, version),
    cursor,
  });
  q.waitUntil(key().then((k) => writePage(k, json)));
  return page;
}
