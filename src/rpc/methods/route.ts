/**
 * Where prompts/get and completion/complete for a name go, even before any
 * prompts/list, in the caller's view (catalog/views.ts): a name it may not
 * see is answered like an unknown one and never routed upstream. A name the
 * view does not know, while some enabled upstream has never been listed,
 * gets those upstreams listed first (the cold path prompts/list uses,
 * rate-limited there): an upstream mounted without a prefix has no prefix to
 * route by, and a client may get a prompt it knows by name without listing first.
 */
import type { Route, View } from '../../catalog/catalog.js';
import { listMissing } from '../../catalog/upstreams/cold.js';
import type { CallContext } from '../context.js';

export async function routeOf(ctx: CallContext, name: unknown): Promise<{ catalog: View; route: Route }> {
  const full = await ctx.catalog();
  let catalog = full.viewFor(ctx.principal);
  let route = catalog.route(name, ctx.cfg.separator);
  if (route.kind === 'local' && typeof name === 'string' && !catalog.has(name)) {
    // Any page size: the merged catalog is wanted at once, whatever its length.
    const merged = await listMissing(ctx, full, Number.MAX_SAFE_INTEGER);
    if (merged !== full) {
      catalog = merged.viewFor(ctx.principal);
      route = catalog.route(name, ctx.cfg.separator);
    }
  }
  return { catalog, route };
}
