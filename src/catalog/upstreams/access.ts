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
import type { SkippedPrompt } from '../types.js';
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
 * An alias owns the name it publishes, whatever the guess: over the
 * upstream's own prompt of that name, and over a later alias onto the same
 * name (the configuration's order decides, never the listing's). So a name
 * the catalog had no listing for (`review_pr`, guessed as itself) reaches
 * the aliased prompt, and a listing made under another configuration cannot
 * route a name to a prompt that no longer owns it.
 */
export function servedOriginal(u: UpstreamConfig, separator: string, asked: string, original: string): string | null {
  if (othersPrefix(u, separator, asked) !== undefined) return null;
  // The name first: it is the cheap test, and a listing asks once per prompt (sanitize.ts).
  const serves = (name: string) => publishedName(u, separator, name) === asked && nameAllowed(u, name);
  return Object.keys(u.aliases).find(serves) ?? (serves(original) ? original : null);
}

/** Skipped prompts a publisher keeps (an upstream's state, for /status): enough to name a misconfigured alias, bounded. */
export const MAX_SKIPPED_SHOWN = 20;

/** Publishes a listing's prompts one at a time, in its order, and keeps the first of those it skips. */
export interface Publisher {
  /** The name `original` is published under; undefined when `allow`/`deny` keeps it out or it is skipped. */
  readonly publish: (original: string) => string | undefined;
  /** The allowed prompts not published under their name, with why (at most MAX_SKIPPED_SHOWN). */
  readonly skipped: SkippedPrompt[];
}

/**
 * The publisher of a listing (sanitize.ts lists, restate.ts restates a kept listing under the
 * configuration now): an allowed prompt is skipped when a get of its name would not reach it
 * (servedOriginal: another's prefix, a name an alias takes) or the name was published already. So a
 * listing and a get never disagree, and no name is listed twice.
 */
export function publisher(u: UpstreamConfig, separator: string): Publisher {
  const published = new Set<string>();
  const skipped: SkippedPrompt[] = [];
  /** Why a get of `name` would not reach `original` (undefined: it would, and the name is free). */
  const whyNot = (name: string, original: string): string | undefined => {
    const taken = othersPrefix(u, separator, name);
    if (taken !== undefined) return `"${taken}" is another's prefix`;
    const owner = servedOriginal(u, separator, name, original);
    if (owner !== original) return `the alias of "${owner}" takes the name`;
    return published.has(name) ? 'listed twice' : undefined;
  };
  return {
    skipped,
    publish: (original) => {
      if (!nameAllowed(u, original)) return undefined; // nameAllowed caps the length
      const name = publishedName(u, separator, original);
      const reason = whyNot(name, original);
      if (reason !== undefined) {
        if (skipped.length < MAX_SKIPPED_SHOWN) skipped.push({ name, original, reason });
        return undefined;
      }
      published.add(name);
      return name;
    },
  };
}
