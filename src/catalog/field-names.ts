/**
 * What a field that a record does not have was probably meant to be, for the error that refuses it
 * (content-checks.ts Checker.only): the known field closest to it within two edits, or a note that
 * the admin API adds it on reads (a record read back and PUT as it is).
 */
/** Edit distance of two short names (Levenshtein, one row at a time). */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** The known field closest to `key` within two edits (`group` → `groups`), to name in the error. */
function nearest(key: string, known: readonly string[]): string | undefined {
  const k = key.toLowerCase();
  let best: { field: string; d: number } | undefined;
  for (const field of known) {
    if (Math.abs(field.length - k.length) > 2) continue;
    const d = distance(field, k);
    if (d <= 2 && (best === undefined || d < best.d)) best = { field, d };
  }
  return best?.field;
}

/** What the admin API adds to a record it reads back (admin-answer.ts): not content to PUT again. */
const READ_ONLY_FIELDS = new Set(['_version', '_updatedAt']);

/** The hint after "is not a … field": a near known field, what the admin API adds, or nothing. */
export function fieldHint(key: string, known: readonly string[]): string {
  if (READ_ONLY_FIELDS.has(key)) return ' (the admin API adds it on reads)';
  const near = nearest(key, known);
  return near ? ` (did you mean "${near}"?)` : '';
}
