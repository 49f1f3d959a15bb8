/**
 * Finds what a skill URI names in the caller's view, listing never-listed upstreams first when the
 * catalog does not know it yet (as prompt names do: rpc/methods/route.ts), so the answer never
 * depends on an earlier list. Not visible is answered exactly as unknown: undefined.
 */
import type { View } from '../../catalog/catalog.js';
import { listMissing } from '../../catalog/upstreams/cold.js';
import type { CallContext } from '../context.js';

export async function lookupSkill<T>(
  ctx: CallContext,
  find: (view: View) => T | undefined,
): Promise<{ view: View; found: T | undefined }> {
  const full = await ctx.catalog();
  const view = full.viewFor(ctx.principal);
  const found = find(view);
  if (found !== undefined) return { view, found };
  // Any page size: the merged catalog is wanted at once, whatever its length.
  const merged = await listMissing(ctx, full, Number.MAX_SAFE_INTEGER);
  if (merged === full) return { view, found };
  const again = merged.viewFor(ctx.principal);
  return { view: again, found: find(again) };
}
