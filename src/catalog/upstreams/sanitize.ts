/**
 * Upstream listings are untrusted: this keeps only what a prompt listing
 * needs, caps sizes, allows only https: and data:image/ icons (the rule
 * prompts/get content follows too, sanitize-content.ts), applies the
 * upstream's allow/deny lists and aliases, and namespaces the names (an
 * upstream mounted without a prefix keeps out of the others' namespaces).
 * An entry that is not an object with a usable name is dropped like a
 * denied one: one bad entry never costs the rest of the listing. What is
 * kept is bounded in bytes too: the writer keeps an upstream's state as one
 * SQLite row (at most 2 MB, with its skills listing's 1 MiB beside it).
 */
import { isRecord } from '../../lib/json.js';
import { log } from '../../lib/log.js';
import { utf8Length } from '../arguments.js';
import type { ArgumentRecord, SkippedPrompt, UpstreamPrompt } from '../types.js';
import { publisher } from './access.js';
import type { UpstreamConfig } from './schema.js';
import { safeIcons } from './sanitize-content.js';

export const MAX_UPSTREAM_PROMPTS = 1_000;
/** The kept prompts' JSON, in UTF-8 bytes: past it, the rest of the listing is skipped (and logged). */
export const MAX_PROMPTS_LISTING_BYTES = 640 * 1024;
const MAX_ARGS = 50;

const str = (v: unknown, max: number): string | undefined => (typeof v === 'string' ? v.slice(0, max) : undefined);

/**
 * The listing as published (access.ts `publisher`): a name only where a get of it reaches that
 * prompt, each name once. The first allowed prompts left out go to `skipped`, with why, when given
 * (report.ts): the operator sees them in /status, and the upstream's object logs them when they
 * change (skip-log.ts).
 */
export function sanitizeListing(
  u: UpstreamConfig,
  separator: string,
  listed: readonly unknown[],
  skipped?: SkippedPrompt[],
): UpstreamPrompt[] {
  const out: UpstreamPrompt[] = [];
  const publication = publisher(u, separator);
  let bytes = 0;
  let overBound = 0;
  for (const p of listed.slice(0, MAX_UPSTREAM_PROMPTS)) {
    if (!isRecord(p)) continue;
    const original = p.name;
    if (typeof original !== 'string' || !original) continue;
    const name = publication.publish(original);
    if (name === undefined) continue;
    const prompt: UpstreamPrompt = { name, origin: { upstream: u.id, name: original } };
    const title = str(p.title, 200);
    const description = str(p.description, 4000);
    if (title !== undefined) prompt.title = title;
    if (description !== undefined) prompt.description = description;
    if (Array.isArray(p.arguments)) {
      prompt.arguments = p.arguments.slice(0, MAX_ARGS).flatMap((a: Record<string, unknown>) => {
        const name = str(a?.name, 64);
        if (!name) return [];
        const arg: ArgumentRecord = { name };
        const t = str(a.title, 200);
        const d = str(a.description, 4000);
        if (t !== undefined) arg.title = t;
        if (d !== undefined) arg.description = d;
        if (typeof a.required === 'boolean') arg.required = a.required;
        return [arg];
      });
    }
    const icons = safeIcons(p.icons);
    if (icons) prompt.icons = icons;
    // The configuration's, never the upstream's: an upstream cannot widen or narrow who sees its prompts.
    if (u.groups) prompt.groups = u.groups;
    const size = utf8Length(JSON.stringify(prompt));
    if (overBound > 0 || bytes + size > MAX_PROMPTS_LISTING_BYTES) {
      overBound++;
      continue;
    }
    bytes += size;
    out.push(prompt);
  }
  skipped?.push(...publication.skipped);
  if (overBound > 0)
    log.warn('upstream prompts skipped past the listing bound', {
      upstream: u.id,
      skipped: overBound,
      limitBytes: MAX_PROMPTS_LISTING_BYTES,
    });
  return out;
}
