/**
 * An upstream's whole prompt list (client.ts `listing`): prompts/list page after page, following
 * nextCursor, within one deadline, bounded in pages and in prompts, so a looping or endless
 * upstream cannot hang or flood us. The cache hints of the pages (modern upstreams) are narrowed
 * into one.
 */
import { narrowHints, readHints, type CacheHints } from '../hints.js';
import { MAX_UPSTREAM_PROMPTS } from './sanitize.js';
import { UpstreamError, type Json } from './wire.js';
import { type Deadline } from './deadline.js';

/** One request to the upstream, as the client sends it. */
export type Ask = (method: string, params: Json, d: Deadline) => Promise<Json>;

export async function allPromptPages(
  ask: Ask,
  maxPages: number,
  d: Deadline,
): Promise<{ prompts: Json[]; hints?: CacheHints }> {
  const all: Json[] = [];
  const pageHints: (CacheHints | undefined)[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const r = await ask('prompts/list', cursor ? { cursor } : {}, d);
    if (!Array.isArray(r.prompts)) throw new UpstreamError('protocol', 'prompts/list result has no prompts array');
    // Entries are kept as sent, whatever they are: sanitize.ts vets each, so a bad one costs only itself.
    all.push(...(r.prompts as Json[]).slice(0, MAX_UPSTREAM_PROMPTS - all.length));
    pageHints.push(readHints(r));
    cursor = typeof r.nextCursor === 'string' && r.nextCursor ? r.nextCursor : undefined;
    // Past the per-upstream prompt cap further pages would only be dropped: not read at all.
    if (!cursor || all.length >= MAX_UPSTREAM_PROMPTS) {
      const first = pageHints.find((h) => h !== undefined);
      return first ? { prompts: all, hints: narrowHints(first, pageHints) } : { prompts: all };
    }
  }
  throw new UpstreamError('protocol', `prompts/list did not end within ${maxPages} pages`);
}
