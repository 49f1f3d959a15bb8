/**
 * A list page (catalog/listing.ts) as a method result: the legacy era gets the page as it is; the
 * modern era gets its cache hints and the modern head spliced in front, built once per page.
 */
import { withHints, type Listing } from '../../catalog/listing.js';
import { RawJson } from '../envelope.js';
import type { CallContext } from '../context.js';
import { modernJson } from '../modern-result.js';

const modernPages = new WeakMap<Listing, RawJson>();

export function listResult(page: Listing, ctx: CallContext): RawJson {
  if (ctx.era !== 'modern') return new RawJson(page.json);
  // Listing objects are stable per page in a warm isolate.
  let modern = modernPages.get(page);
  if (!modern) modernPages.set(page, (modern = new RawJson(modernJson(withHints(page), ctx.version), true)));
  return modern;
}

/** Synchronous when the page is already in this isolate. */
export function asListResult(page: Listing | Promise<Listing>, ctx: CallContext): RawJson | Promise<RawJson> {
  return page instanceof Promise ? page.then((p) => listResult(p, ctx)) : listResult(page, ctx);
}
