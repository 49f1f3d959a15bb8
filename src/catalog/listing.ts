/**
 * One page of any list (prompts, the tools mirror, skills, skill resources) of the caller's
 * view (catalog/views.ts), from the
 * cheapest place that has it:
 *   1. this isolate's compiled catalog (a warm isolate: no I/O at all);
 *   2. the edge cache, for an isolate with no catalog yet: the colo's
 *      pointer names the generation (and the groups the catalog uses, for
 *      the view key), and the page is looked up under (scope, principal,
 *      view, generation, revision and paging, cursor), with no KV read;
 *   3. KV (one read of the head snapshot), and the page is then stored in
 *      the edge cache for the isolates that come after.
 * prompts/list (both eras), tools/list, skills/list, resources/list and
 * GET /prompts are all served here. Pages are kept per view, so principals
 * who see the same prompts share them; only a page whose content is private
 * (an upstream said so) is also kept per caller (listing-keys.ts callerOf).
 *
 * The layer that answered goes on the request's record (`promptgate.cache`).
 * The pages this isolate made are kept by listing-memo.ts, and the parts of
 * a page's edge-cache key are listing-keys.ts.
 *
 * Provisional catalogs (the cold upstream merge, which shares its base's
 * generation) are never stored: a page must mean exactly its generation
 * (their pages say so: Listing.provisional).
 */
import type { RequestScope } from '../lib/scope.js';
import { originOf } from '../lib/url.js';
import type { ProtocolVersion } from '../lib/versions.js';
import { PROMPTS, type ListKind } from './catalog.js';
import { cursorShaped } from './cursor.js';
import { readPage, readPointer, type PageKey } from './edge.js';
import { viewHints } from './hints.js';
import { callerOf, pageVariant, viewSegment } from './listing-keys.js';
import { build, knownPage, type Listing } from './listing-memo.js';
import { viewKeyIn } from './views.js';
import { currentCatalog, peekCatalog } from './store.js';
import { upstreamConfigs } from './upstreams/config.js';
import { listMissing } from './upstreams/cold.js';

/** The page with its cache hints in front, as modern list results and GET /prompts carry them. */
export function withHints(page: Listing): string {
  return `{"ttlMs":${page.hints.ttlMs},"cacheScope":"${page.hints.cacheScope}",${page.json.slice(1)}`;
}

async function fromEdge(
  q: RequestScope,
  version: ProtocolVersion,
  cursor: string | undefined,
  kind: ListKind,
): Promise<Listing | undefined> {
  // A cursor that cannot be ours (a lone surrogate cannot even go in a URL) is left to the catalog's -32602.
  if (cursor !== undefined && !cursorShaped(cursor)) return undefined;
  const origin = originOf(q.url);
  const pointer = await readPointer(origin);
  if (!pointer) return undefined;
  const { generation, ttlMs, cacheScope } = pointer;
  const grouped = (pointer.groups?.length ?? 0) > 0;
  const view = viewKeyIn(pointer.groups, q.principal);
  const hints = viewHints({ ttlMs, cacheScope }, grouped);
  const key: PageKey = {
    origin,
    scope: hints.cacheScope,
    principal: await callerOf(cacheScope, q),
    view: await viewSegment(view, grouped),
    generation,
    variant: await pageVariant(q, kind, version),
    cursor,
  };
  const json = await readPage(key);
  return json === undefined ? undefined : { json, generation, hints, view };
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
  const warm = peekCatalog(q);
  if (warm) {
    // Cold upstream path, first page only (a cursor belongs to the generation it was minted in).
    const catalog = cursor === undefined ? listMissing(q, warm, q.cfg.pageSize, kind) : warm;
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
  const [loaded] = await Promise.all([currentCatalog(q), cursor === undefined && upstreamConfigs(q.env)]);
  const catalog = cursor === undefined ? await listMissing(q, loaded, q.cfg.pageSize, kind) : loaded;
  const view = catalog.viewFor(q.principal);
  return knownPage(q, version, cursor, view, kind) ?? build(q, version, cursor, view, kind);
}
