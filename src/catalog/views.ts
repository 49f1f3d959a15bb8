/**
 * View keys (docs/access-control.md, "Visibility"): which prompts a principal sees depends only on
 * the sorted intersection of its groups with the groups the catalog uses (`*` for admins), so
 * principals with equal keys share every cached page. The key is memoised on the principal object,
 * per catalog group set: a warm request's view lookup is a map hit.
 */
import type { Principal } from '../lib/scope.js';

/** The admin view's key: everything. Group names cannot contain `*` (groups.ts GROUP_PATTERN). */
export const ALL = '*';

/**
 * The key of the view a principal gets in a catalog that uses these groups, as Catalog.viewFor
 * gives it: a catalog without groups is one view for everyone, admins included (`''`, not `*`).
 * For the cold edge paths, which know the groups from the colo's pointer and no catalog yet.
 */
export const viewKeyIn = (groups: readonly string[] | undefined, p: Principal | undefined): string =>
  groups?.length ? computeViewKey(new Set(groups), p) : '';

/** The key without memo, for a catalog that uses groups (views.ts viewKeyIn for any catalog). */
export function computeViewKey(groups: ReadonlySet<string>, p: Principal | undefined): string {
  if (!p) return '';
  if (p.admin) return ALL;
  const mine = p.groups.filter((g, i) => groups.has(g) && p.groups.indexOf(g) === i);
  return mine.length ? mine.sort().join(',') : '';
}

const memo = new WeakMap<Principal, { groups: ReadonlySet<string>; key: string }>();

/** The principal's view key in a catalog that uses `groups` (non-empty). */
export function viewKeyOf(groups: ReadonlySet<string>, p: Principal | undefined): string {
  if (!p) return '';
  const hit = memo.get(p);
  if (hit?.groups === groups) return hit.key;
  const key = computeViewKey(groups, p);
  memo.set(p, { groups, key });
  return key;
}

/** The groups a view key stands for (null: all). */
export function groupsOfKey(key: string): ReadonlySet<string> | null {
  if (key === ALL) return null;
  return new Set(key ? key.split(',') : []);
}

/** Whether a principal (undefined: anonymous) sees what these groups guard, without a catalog at hand. */
export function principalSees(p: Principal | undefined, groups: readonly string[] | undefined): boolean {
  return sees(p?.admin ? null : new Set(p?.groups ?? []), groups);
}

/** Whether a view with these groups (null: all) sees a prompt with these (undefined: everyone's). */
export function sees(allowed: ReadonlySet<string> | null, groups: readonly string[] | undefined): boolean {
  if (allowed === null || groups === undefined) return true;
  for (const g of groups) if (allowed.has(g)) return true;
  return false;
}
