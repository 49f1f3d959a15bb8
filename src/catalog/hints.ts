/**
 * Cache hints (`ttlMs`, `cacheScope`) for list results, spec 2026-07-28
 * server/utilities/caching.
 *
 * The gateway's own catalog does not depend on the caller, so on its own it
 * is `public` with the configured TTL. Upstreams can only narrow that: the
 * smallest non-zero TTL wins, and one upstream that said 0 or `private`
 * makes the whole merged list 0/`private`, because a merged page cannot be
 * fresher or more shareable than its least cacheable part. A legacy
 * upstream sends no hints; the gateway re-lists it on its own change
 * stream and poll, so it does not narrow anything.
 */

export type CacheScope = 'public' | 'private';

export interface CacheHints {
  readonly ttlMs: number;
  readonly cacheScope: CacheScope;
}

export const UNCACHEABLE: CacheHints = { ttlMs: 0, cacheScope: 'private' };

/** The gateway's own hints for a configured TTL: public, since nothing of its own depends on the caller; 0 means uncacheable. */
export function ownHints(ttlMs: number): CacheHints {
  return ttlMs > 0 ? { ttlMs, cacheScope: 'public' } : UNCACHEABLE;
}

/** Hints as an upstream sent them, normalised: absent → undefined, negative → 0, anything but "public" → private. */
export function readHints(result: Record<string, unknown>): CacheHints | undefined {
  const { ttlMs, cacheScope } = result;
  if (ttlMs === undefined && cacheScope === undefined) return undefined;
  const ttl = typeof ttlMs === 'number' && Number.isFinite(ttlMs) && ttlMs > 0 ? Math.floor(ttlMs) : 0;
  return { ttlMs: ttl, cacheScope: cacheScope === 'public' ? 'public' : 'private' };
}

/** The hints of a whole made of parts: never wider, never fresher than any part. */
export function narrowHints(base: CacheHints, parts: readonly (CacheHints | undefined)[]): CacheHints {
  let ttlMs = base.ttlMs;
  let scope = base.cacheScope;
  for (const h of parts) {
    if (!h) continue;
    if (h.ttlMs === 0 || h.cacheScope === 'private') return UNCACHEABLE;
    ttlMs = Math.min(ttlMs, h.ttlMs);
    if (h.cacheScope !== 'public') scope = 'private';
  }
  return ttlMs === 0 ? UNCACHEABLE : { ttlMs, cacheScope: scope };
}

/**
 * The hints of a listing read page by page (prompts/list, skills/list): every page narrows them, since
 * the listing is made of them all; undefined when no page sent any (a legacy upstream narrows nothing).
 */
export function pagedHints(pages: readonly (CacheHints | undefined)[]): CacheHints | undefined {
  const first = pages.find((h) => h !== undefined);
  return first && narrowHints(first, pages);
}

/**
 * The hints of one view's pages, from the content's own: a catalog that uses groups at all is
 * `private` (what a caller sees depends on who it is), with the same TTL.
 */
export function viewHints(content: CacheHints, grouped: boolean): CacheHints {
  return grouped && content.cacheScope === 'public' ? { ttlMs: content.ttlMs, cacheScope: 'private' } : content;
}
