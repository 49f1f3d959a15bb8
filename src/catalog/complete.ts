/**
 * Ranking of declared argument values for completion/complete.
 *
 * Prefix matches first, then substring matches, then in-order subsequence
 * ("fuzzy") matches, each tier keeping the author's order. Case-insensitive.
 * At most 100 values are returned (spec), with the true `total`.
 */

export interface Completion {
  values: string[];
  total: number;
  hasMore: boolean;
}

export const MAX_COMPLETION_VALUES = 100;

function isSubsequence(needle: string, hay: string): boolean {
  let i = 0;
  for (let j = 0; j < hay.length && i < needle.length; j++) if (hay[j] === needle[i]) i++;
  return i === needle.length;
}

export function completeValues(declared: readonly string[], typed: string): Completion {
  const q = typed.toLowerCase();
  const prefix: string[] = [];
  const infix: string[] = [];
  const fuzzy: string[] = [];
  for (const v of declared) {
    const l = v.toLowerCase();
    if (l.startsWith(q)) prefix.push(v);
    else if (l.includes(q)) infix.push(v);
    else if (isSubsequence(q, l)) fuzzy.push(v);
  }
  const all = prefix.concat(infix, fuzzy);
  return {
    values: all.slice(0, MAX_COMPLETION_VALUES),
    total: all.length,
    hasMore: all.length > MAX_COMPLETION_VALUES,
  };
}
