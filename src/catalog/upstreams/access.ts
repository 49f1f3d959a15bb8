/**
 * The access boundary of an upstream's prompts: `allow`/`deny` and aliases
 * (and, mounted without a prefix, the other namespaces) decide which names
 * exist for clients, in every method, not only in the listing. A name is
 * served only if the upstream's current configuration publishes it: a denied
 * prompt, or an aliased prompt asked for under its original name, is unknown,
 * and the upstream is never asked about it.
 *
 * Lookups are own-property only: an upstream prompt called `constructor`
 * or `__proto__` is a name like any other.
 */
import { nameAllowed, type UpstreamConfig } from './schema.js';
import { namespaced, prefixOf } from './names.js';

/** The name an upstream prompt is published under, before the prefix. */
export function aliasOf(u: UpstreamConfig, original: string): string {
  return Object.hasOwn(u.aliases, original) ? u.aliases[original]! : original;
}

/** The full name clients see for an upstream prompt. */
export function publishedName(u: UpstreamConfig, separator: string, original: string): string {
  return namespaced(u.prefix, separator, aliasOf(u, original));
}

/**
 * The prefix of another upstream, or the LOCAL_PREFIX, that a name of an upstream mounted without a prefix
 * starts with (undefined: none). The upstream is always the part before the first separator (names.ts): such
 * a name is not this upstream's to publish, or it would take or shadow that namespace's prompt of that name.
 */
export function othersPrefix(u: UpstreamConfig, separator: string, name: string): string | undefined {
  const head = prefixOf(name, separator)?.prefix;
  return head !== undefined && u.reserved?.includes(head) ? head : undefined;
}

/**
 * The upstream's own name for what a client asked (`asked`, the full name),
 * given the catalog's guess (`original`: from the listing, or the rest of
 * the name after the prefix). Null when the configuration does not publish
 * `asked`: the prompt does not exist for clients.
 *
 * An alias owns the name it publishes: a name the catalog had no listing for
 * is guessed as itself (`review_pr`, the alias of `review_pull_request`), and
 * that guess would publish the same name, so the aliases are asked before an
 * unaliased guess (an aliased guess that publishes `asked` came from the
 * listing, and is kept).
 */
export function servedOriginal(u: UpstreamConfig, separator: string, asked: string, original: string): string | null {
  if (othersPrefix(u, separator, asked) !== undefined) return null;
  const serves = (name: string) => nameAllowed(u, name) && publishedName(u, separator, name) === asked;
  const aliased = Object.keys(u.aliases);
  const order = Object.hasOwn(u.aliases, original) ? [original, ...aliased] : [...aliased, original];
  return order.find(serves) ?? null;
}
