/**
 * Shapes of parsed JSON. `isRecord` is the one object test every parser of
 * untrusted JSON here uses. The depth bound is what the body limit alone
 * does not give. An 18 KB
 * body can nest 3,000 levels deep; anything that later walks it
 * recursively (structured clone into a Durable Object, JSON.stringify of a
 * stored session) then overflows the stack. Checked once, iteratively,
 * right after parsing.
 */

/** A JSON object: not null, not an array. */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deepest nesting of objects and arrays accepted in a request body. */
export const MAX_JSON_DEPTH = 64;

/** True when `value` nests objects or arrays deeper than `max` levels. Never recursive. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (depth > max) return true;
    const children = Array.isArray(v) ? v : Object.values(v as object);
    for (const c of children) if (typeof c === 'object' && c !== null) stack.push([c, depth + 1]);
  }
  return false;
}
