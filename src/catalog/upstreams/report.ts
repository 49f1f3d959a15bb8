/**
 * One upstream's listing as the CatalogWriter receives it, and what a re-listing came to. Both
 * producers build a listing the same way: the upstream's own object (upstream-object.ts) and the
 * read path's cold branch (cold.ts), which lists a never-listed upstream before its object exists.
 * A module of its own, so the writer and the producers share the shape without importing one
 * another.
 */
import type { CacheHints } from '../hints.js';
import type { CatalogSnapshot, SkippedPrompt, UpstreamPrompt, UpstreamSkill } from '../types.js';
import type { UpstreamConfig } from './schema.js';
import { sanitizeListing } from './sanitize.js';

/** One upstream's listing, or why there is none. */
export interface ListReport {
  id: string;
  prefix: string;
  prompts?: UpstreamPrompt[];
  /** Prompts it listed that are not published under their name, and why (sanitize.ts); absent: none. */
  skipped?: SkippedPrompt[];
  /** Its skills (upstreams declaring the Skills extension; skills.ts), listed apart from the prompts. */
  skills?: UpstreamSkill[];
  /** The upstream's cache hints on its skills listing, when it sent any (skills.ts SkillsOutcome). */
  skillsHints?: CacheHints;
  /** Why listing its skills failed: the writer keeps the last good skills listing, marked stale. */
  skillsError?: string;
  /** listingKey of the configuration the listing was made under; the writer drops one made under another. */
  configKey?: string;
  /** The upstream's configured groups (UpstreamState.groups). */
  groups?: string[];
  /** The upstream's cache hints on that listing, when it sent any. */
  hints?: CacheHints;
  error?: string;
  /** How long the upstream operation took, as the gateway measured it (ms). */
  ms?: number;
}

/**
 * What of an upstream's configuration shapes its listing's names: its prefix, allow, deny, aliases
 * and, mounted without a prefix, the other namespaces it keeps out of. A listing made under another
 * (an object reading an older copy) is not the upstream's now.
 */
export const listingKey = (u: Pick<UpstreamConfig, 'prefix' | 'allow' | 'deny' | 'aliases' | 'reserved'>): string =>
  JSON.stringify(
    u.reserved ? [u.prefix, u.allow, u.deny, u.aliases, u.reserved] : [u.prefix, u.allow, u.deny, u.aliases],
  );

/** A listing as reported: sanitized prompts, and the hints when there were some. */
export function reported(
  u: UpstreamConfig,
  separator: string,
  listing: { prompts: readonly unknown[]; hints?: CacheHints },
): ListReport {
  const skipped: SkippedPrompt[] = [];
  const r: ListReport = {
    id: u.id,
    prefix: u.prefix,
    prompts: sanitizeListing(u, separator, listing.prompts, skipped),
    configKey: listingKey(u),
  };
  if (skipped.length) r.skipped = skipped;
  if (listing.hints) r.hints = listing.hints;
  if (u.groups) r.groups = u.groups;
  return r;
}

/** What one re-listing came to (upstream-object.ts `refresh`; refresh.ts gathers them for the admin API). */
export interface RefreshResult {
  ok: boolean;
  prompts: number;
  error?: string;
  /** The listing's own duration (the upstream's timeout bounds it); absent when no upstream call was made. */
  ms?: number;
  snapshot?: CatalogSnapshot;
}
