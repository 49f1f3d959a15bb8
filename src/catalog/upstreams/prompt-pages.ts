/**
 * An upstream's whole prompt list (client.ts `listing`): prompts/list page after page, following
 * nextCursor, within one deadline, bounded in pages, in prompts and in bytes, so a looping, endless
 * or bloated upstream can neither hang us nor fill memory. Past any bound the listing is what was
 * read before it (logged), not a failure: an honest upstream that pages finely is still listed. The
 * byte cap (body.ts) bounds one reply; a listing keeps only its entries cut down (`cutListed`) as
 * each page arrives, at most MAX_LISTED_BYTES of them, never the pages themselves. The cache hints
 * of the pages (modern upstreams) are narrowed into one.
 */
import { isRecord } from '../../lib/json.js';
import { log } from '../../lib/log.js';
import { utf8Length } from '../arguments.js';
import { pagedHints, readHints, type CacheHints } from '../hints.js';
import { MAX_REPLY_BYTES } from './body.js';
import { MAX_UPSTREAM_PROMPTS } from './sanitize.js';
import { safeIcons } from './sanitize-content.js';
import { UpstreamError, type Json } from './wire.js';
import { type Deadline } from './deadline.js';

/** One request to the upstream, as the client sends it. */
export type Ask = (method: string, params: Json, d: Deadline) => Promise<Json>;

/** All pages' cut entries together (as JSON, in UTF-8 bytes): no more than one reply may carry. */
export const MAX_LISTED_BYTES = MAX_REPLY_BYTES;
/** The longest text sanitize.ts keeps of any field (a description): cutting there first changes nothing it keeps. */
const MAX_TEXT = 4000;

/** The text fields `keys` of `o`, each cut to MAX_TEXT; nothing else of `o`. */
function texts(o: Record<string, unknown>, keys: readonly string[]): Json {
  const out: Json = {};
  for (const k of keys) {
    const v = o[k];
    if (typeof v === 'string') out[k] = v.slice(0, MAX_TEXT);
  }
  return out;
}

/**
 * A listed entry reduced to what sanitize.ts reads of it, each field cut to at most what it keeps,
 * so sanitizing the cut entry gives what sanitizing the entry would; undefined for an entry it
 * never keeps (not an object, or no name). Arguments keep their places (a malformed one as null),
 * since sanitize.ts counts its argument cap over them as listed.
 */
export function cutListed(p: unknown): Json | undefined {
  if (!isRecord(p) || typeof p.name !== 'string' || !p.name) return undefined;
  const out = texts(p, ['name', 'title', 'description']);
  if (Array.isArray(p.arguments))
    out.arguments = p.arguments.map((a: unknown) =>
      isRecord(a)
        ? {
            ...texts(a, ['name', 'title', 'description']),
            ...(typeof a.required === 'boolean' && { required: a.required }),
          }
        : null,
    );
  const icons = safeIcons(p.icons);
  if (icons) out.icons = icons;
  return out;
}

export async function allPromptPages(
  ask: Ask,
  maxPages: number,
  d: Deadline,
): Promise<{ prompts: Json[]; hints?: CacheHints }> {
  const kept: Json[] = [];
  // Entries read, bad ones included: the prompt cap counts what the upstream listed, not what is kept.
  let listed = 0;
  let bytes = 0;
  const pageHints: (CacheHints | undefined)[] = [];
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    const r = await ask('prompts/list', cursor ? { cursor } : {}, d);
    if (!Array.isArray(r.prompts)) throw new UpstreamError('protocol', 'prompts/list result has no prompts array');
    pageHints.push(readHints(r));
    cursor = typeof r.nextCursor === 'string' && r.nextCursor ? r.nextCursor : undefined;
    let full = false;
    // Entries are vetted by sanitize.ts, so a bad one costs only itself; here they are only cut down.
    for (const p of (r.prompts as unknown[]).slice(0, MAX_UPSTREAM_PROMPTS - listed)) {
      listed++;
      const cut = cutListed(p);
      if (!cut) continue;
      const json = JSON.stringify(cut);
      bytes += utf8Length(json);
      if ((full = bytes > MAX_LISTED_BYTES)) break;
      // Kept as parsed back from its JSON: a cut string may be a slice of the page's, which keeps all of it alive.
      kept.push(JSON.parse(json) as Json);
    }
    // Past the prompt or byte cap further pages would only be dropped (sanitize.ts keeps far less): not read at all.
    if (full)
      log.warn('upstream prompts listing cut past its byte bound', {
        pages: page,
        kept: kept.length,
        limitBytes: MAX_LISTED_BYTES,
      });
    // Past the page cap too: a looping upstream costs no more than maxPages, an endless one keeps what it listed.
    else if (cursor && listed < MAX_UPSTREAM_PROMPTS && page >= maxPages)
      log.warn('upstream prompts listing cut past its page bound', { pages: page, kept: kept.length });
    if (!cursor || full || listed >= MAX_UPSTREAM_PROMPTS || page >= maxPages) {
      const hints = pagedHints(pageHints);
      return hints ? { prompts: kept, hints } : { prompts: kept };
    }
  }
}
