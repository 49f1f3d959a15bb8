/**
 * What a publish would change: added, changed, removed and unchanged names,
 * compared on a canonical JSON form (key order does not count as a change).
 */
export interface SetDiff {
  added: string[];
  changed: string[];
  removed: string[];
  unchanged: string[];
}

/** JSON with object keys sorted, so equal records serialize identically. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

/** Any named records: prompts and skills are compared alike. */
export function diffSets(
  before: ReadonlyMap<string, { name: string }>,
  upserts: readonly { name: string }[],
  removals: readonly string[],
): SetDiff {
  const diff: SetDiff = { added: [], changed: [], removed: [], unchanged: [] };
  for (const r of upserts) {
    const old = before.get(r.name);
    if (!old) diff.added.push(r.name);
    else if (canonical(old) !== canonical(r)) diff.changed.push(r.name);
    else diff.unchanged.push(r.name);
  }
  for (const name of removals) if (before.has(name)) diff.removed.push(name);
  for (const k of Object.keys(diff) as (keyof SetDiff)[]) diff[k].sort();
  return diff;
}
