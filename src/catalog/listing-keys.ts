/**
 * The parts of a list page's edge-cache key (edge.ts PageKey) that listing.ts reads pages under
 * and listing-memo.ts writes them under, so both agree: who the page is for when its content is
 * private, which view it shows, and which list kind and revision it is.
 */
import type { RequestScope } from '../lib/scope.js';
import { sha256Hex } from '../lib/hash.js';
import { callerDigest } from '../lib/caller.js';
import type { ProtocolVersion } from '../lib/versions.js';
import type { ListKind } from './catalog.js';
import type { CacheHints } from './hints.js';
import { BoundedMap } from '../lib/memo.js';

const hex16 = (text: string) => sha256Hex(text, 16);

/** Pages whose content is private (an upstream said so) are also keyed by the caller (lib/caller.ts). */
export function callerOf(contentScope: CacheHints['cacheScope'], q: RequestScope): Promise<string> | string {
  if (contentScope === 'public') return 'public';
  return callerDigest(q.principal, q.header('authorization'));
}

const viewDigests = new BoundedMap<string, string>(1_000);

/**
 * The view's path segment in edge-cache keys: `-` for a catalog without groups, else a digest (so
 * group names never appear in a URL), also for the empty key of a grouped one, which is not everyone's.
 */
export async function viewSegment(key: string, grouped: boolean): Promise<string> {
  if (!grouped) return '-';
  let d = viewDigests.get(key);
  if (!d) viewDigests.set(key, (d = await hex16(`view/v1|${key}`)));
  return d;
}

/** A page's shape among its generation's pages in the edge cache: its list kind and revision (prompts: the revision alone). */
export const variantOf = (kind: ListKind, version: ProtocolVersion): string =>
  kind.id ? `${kind.id}|${version}` : version;
