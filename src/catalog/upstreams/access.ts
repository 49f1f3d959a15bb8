/**
 * The access boundary of an upstream's prompts: `allow`/`deny` and aliases
 * decide which names exist for clients, in every method, not only in the
 * listing. A name is served only if the upstream's current configuration
 * publishes it: a denied prompt, or an aliased prompt asked for under its
 * original name, is unknown, and the upstream is never asked about it.
 *
 * Lookups are own-property only: an upstream prompt called `constructor`
 * or `__proto__` is a name like any other.
 */
import { nameAllowed, type UpstreamConfig } from './schema.js';
import { namespaced } from './names.js';

/** The name an upstream prompt is published under, before the prefix. */
export function aliasOf(u: UpstreamConfig, original: string): string {
  return Object.hasOwn(u.aliases, original) ? u.aliases[original]! : original;
}

/** The full name clients see for an upstream prompt. */
export function publishedName(u: UpstreamConfig, separator: string, original: string): string {
  return namespaced(u.prefix, separator, aliasOf(u, original));
}

/**
 * The upstream's own name for what a client asked (`asked`, the full name),
 * given the catalog's guess (`original`: from the listing, or the rest of
 * the name after the prefix). Null when the configuration does not publish
 * `asked`: the prompt does not exist for clients.
 */
export function servedOriginal(u: UpstreamConfig, separator: string, asked: string, original: string): string | null {
  if (nameAllowed(u, original) && publishedName(u, separator, original) === asked) return original;
  // An alias asked for by a name the catalog had no listing for: the original behind it.
  for (const from of Object.keys(u.aliases))
    if (nameAllowed(u, from) && publishedName(u, separator, from) === asked) return from;
  return null;
}
