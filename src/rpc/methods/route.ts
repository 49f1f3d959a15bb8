/**
 * Where prompts/get and completion/complete for a name go, even before any
 * prompts/list. A name the catalog does not know, while some enabled
 * upstream has never been listed, gets those upstreams listed first (the
 * cold path prompts/list uses, rate-limited there): an upstream mounted
 * without a prefix has no prefix to route by, and a client may get a prompt
 * it knows by name without listing first.
 */
import type { Catalog, Route } from '../../catalog/catalog.js';
import { listMissing } from '../../catalog/upstreams/cold.js';
import type { CallContext } from '../context.js';

export async function routeOf(ctx: CallContext, name: unknown): Promise<{ catalog: Catalog; route: Route }> {
  let catalog = await ctx.catalog();
  let route = catalog.route(name, ctx.cfg.separator);
  if (route.kind === 'local' && typeof name === 'string' && !catalog.has(name)) {
    // Any page size: the merged catalog is wanted at once, whatever its length.
    catalog = await listMissing(ctx, catalog, Number.MAX_SAFE_INTEGER);
    route = catalog.route(name, ctx.cfg.separator);
  }
  return { catalog, route };
}
