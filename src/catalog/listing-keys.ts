/**
 * The parts of a list page's edge-cache key (edge.ts PageKey) that listing.ts reads pages under
 * and listing-memo.ts writes them under, so both agree: who the page is for when its content is
 * private, which view it shows, which list kind and revision it is, and the paging it was made with.
 */
import type { RequestScope } from '../lib/scope.js';
import { sha256Hex } from '../lib/hash.js';
import { callerDigest } from '../lib/caller.js';
import type { ProtocolVersion } from '../lib/versions.js';
import type { ListKind } from './catalog.js';
import type { CacheHints } from './hints.js';
import { BoundedMap, PerSecret } from '../lib/memo.js';

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

const pagings = new PerSecret<string>(8);

/**
 * A page's variant in its edge-cache key: variantOf, then the paging the page was made with, its
 * size and the secret its cursors are signed with (a digest: the secret never appears in a URL).
 * Pages outlive a deploy in the edge cache; one that changes either makes new keys, so no isolate
 * serves a page whose cursors the isolates refuse (a rotated secret) or of another size.
 */
export async function pageVariant(
  q: Pick<RequestScope, 'cfg' | 'secret'>,
  kind: ListKind,
  version: ProtocolVersion,
): Promise<string> {
  const memo = pagings.for(q.secret);
  const size = String(q.cfg.pageSize);
  let paging = memo.get(size);
  if (!paging) memo.set(size, (paging = await sha256Hex(`paging/v1|${size}|${q.secret}`, 8)));
  return `${variantOf(kind, version)}@${paging}`;
}
