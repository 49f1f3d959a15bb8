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

/**
 * Two sets of named records (prompts and skills alike) compared as canonical texts: `before`
 * as stored (the versions table), `after` as canonical() made them. Equal texts are unchanged
 * without parsing either; a stored text that differs is parsed and compared canonically, since
 * a row written in another form (another key order) is no change.
 */
export function diffTexts(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
  removals: readonly string[],
): SetDiff {
  const diff: SetDiff = { added: [], changed: [], removed: [], unchanged: [] };
  for (const [name, text] of after) {
    const old = before.get(name);
    if (old === undefined) diff.added.push(name);
    else if (old === text || canonical(JSON.parse(old)) === text) diff.unchanged.push(name);
    else diff.changed.push(name);
  }
  for (const name of removals) if (before.has(name)) diff.removed.push(name);
  for (const k of Object.keys(diff) as (keyof SetDiff)[]) diff[k].sort();
  return diff;
}
