/**
 * Group names, as prompts, skills, upstreams and API keys carry them (docs/access-control.md):
 * what one may be, and the problems with a `groups` value.
 */
/** Group names: no `,` (view keys join them with it) and no `*` (the admin view's key). */
export const GROUP_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:@/-]{0,63}$/;
export const MAX_GROUPS = 32;

/**
 * Problems with a `groups` value (prompt records and upstream entries), as [path, message] pairs.
 * An empty list is refused: it would read as "nobody", while omitting `groups` means "everyone".
 */
export function groupProblems(groups: unknown, path: string): [string, string][] {
  if (groups === undefined) return [];
  if (!Array.isArray(groups) || groups.length === 0)
    return [[path, `must be a non-empty list of group names (omit ${path} to show it to everyone)`]];
  if (groups.length > MAX_GROUPS) return [[path, `at most ${MAX_GROUPS} groups`]];
  const out: [string, string][] = [];
  const seen = new Set<string>();
  groups.forEach((g: unknown, i) => {
    if (typeof g !== 'string' || !GROUP_PATTERN.test(g))
      out.push([`${path}[${i}]`, 'must be a group name: A-Z a-z 0-9 first, then A-Z a-z 0-9 _ . : @ / - (at most 64)']);
    else if (seen.has(g)) out.push([`${path}[${i}]`, `duplicate group "${g}"`]);
    else seen.add(g);
  });
  return out;
}
