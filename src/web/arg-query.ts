/**
 * A prompt's argument values in a page's query string. The page's own requests (its form, the
 * script's preview and completions) name each argument `arg:<name>`, so no argument name can
 * collide with the page's own parameters (`render`, `argument`, `value`) or with `access_token`,
 * which access control refuses in any URL. A hand-written link may still name an argument plainly
 * (`?who=ada`), except for those reserved names; a prefixed name wins over the plain one.
 * Local argument names cannot hold a `:`, so the prefix is never a local argument's own name.
 */

export const ARG_PREFIX = 'arg:';

/** The page's own parameters on a prompt's page and preview; completions add `argument` and `value`. */
export const PAGE_PARAMS: readonly string[] = ['render'];
export const COMPLETION_PARAMS: readonly string[] = ['render', 'argument', 'value'];

/** The form field (and query parameter) that carries argument `name`. */
export const argField = (name: string) => ARG_PREFIX + name;

/** Defined, not assigned: an argument may be named `__proto__`, which must stay an ordinary key. */
function put(out: Record<string, string>, k: string, v: string): void {
  Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/** Argument values from a query's parameters (the first value of each), without the reserved ones. */
export function argumentsIn(queries: Record<string, string[]>, reserved: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const prefixed: [string, string][] = [];
  for (const [k, vals] of Object.entries(queries)) {
    const v = vals[0];
    if (v === undefined) continue;
    if (k.startsWith(ARG_PREFIX)) prefixed.push([k.slice(ARG_PREFIX.length), v]);
    else if (!reserved.includes(k)) put(out, k, v);
  }
  for (const [k, v] of prefixed) put(out, k, v);
  return out;
}
