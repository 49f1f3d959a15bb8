/**
 * What a name or URI names in the caller's view (catalog/views.ts), even before any list: a name it
 * may not see is answered like an unknown one and never routed upstream. A name the view does not
 * know, while some enabled upstream has never been listed, gets those upstreams listed first (the
 * cold path prompts/list uses, rate-limited there): an upstream mounted without a prefix has no
 * prefix to route by, and a client may get a prompt or a skill it knows without listing first.
 */
import type { Route, View } from '../../catalog/catalog.js';
import { peekCatalog } from '../../catalog/store.js';
import { findListingMissing } from '../../catalog/upstreams/cold.js';
import type { CallFact } from '../../lib/record.js';
import type { CallContext } from '../context.js';

/** `find` answers undefined for what the view does not know; then never-listed upstreams are listed and it asks again. */
export async function lookup<T>(
  ctx: CallContext,
  find: (view: View) => T | undefined,
): Promise<{ view: View; found: T | undefined }> {
  return findListingMissing(ctx, await ctx.catalog(), find);
}

/** The route of a name the view knows; undefined for a local-looking name it does not have. */
function knownRoute(view: View, name: unknown, separator: string): Route | undefined {
  const route = view.route(name, separator);
  return route.kind === 'local' && typeof name === 'string' && !view.has(name) ? undefined : route;
}

export interface Routed {
  readonly catalog: View;
  readonly route: Route;
}

/**
 * A name this isolate's catalog already routes, answered without a promise (as a warm
 * prompts/list is, catalog/listing.ts); undefined when the catalog must be loaded or the name is
 * not known yet, and routeOf then takes the path that may list upstreams.
 */
export function warmRouteOf(ctx: CallContext, name: unknown): Routed | undefined {
  const full = peekCatalog(ctx);
  if (!full) return undefined;
  const view = full.viewFor(ctx.principal);
  const route = knownRoute(view, name, ctx.cfg.separator);
  return route && { catalog: view, route };
}

/**
 * Where prompts/get, completion/complete and tools/call for a name go. A counted call's usage key is
 * read here: the view may be one merged for a never-listed upstream, which the isolate serves only
 * after the response, and the call would be counted as a name nobody lists (usage/count.ts).
 */
export async function routeOf(ctx: CallContext, name: unknown, fact?: CallFact): Promise<Routed> {
  const { view, found } = await lookup(ctx, (v) => knownRoute(v, name, ctx.cfg.separator));
  // The name as counted (CallFact.prompt, cut to its bound), so the key is the one count.ts would read.
  if (fact?.prompt !== undefined) fact.usageKey = view.usageKey(fact.prompt) ?? null;
  return { catalog: view, route: found ?? view.route(name, ctx.cfg.separator) };
}
