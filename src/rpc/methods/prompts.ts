/**
 * prompts/list and prompts/get. List pages come pre-serialized from the
 * catalog (RawJson) so a warm list never re-encodes prompts; the modern
 * era's cache hints are spliced in front of the page.
 */
import { RawJson, type Params } from '../envelope.js';
import type { CallContext } from '../context.js';
import { getRemote } from './remote.js';
import { listMissing } from '../../catalog/upstreams/object.js';

export async function listPrompts(params: Params, ctx: CallContext): Promise<RawJson> {
  let catalog = await ctx.catalog();
  // Cold path, first page only (a cursor belongs to the generation it was minted in).
  if (params?.cursor === undefined) catalog = await listMissing(ctx.env, catalog, ctx.cfg.pageSize, ctx.waitUntil);
  const page = await catalog.listPage(ctx.version, params?.cursor, ctx.cfg.pageSize, ctx.secret);
  if (ctx.era !== 'modern') return new RawJson(page);
  const h = catalog.cacheHints(ctx.cfg.listTtlMs);
  return new RawJson(`{"ttlMs":${h.ttlMs},"cacheScope":"${h.cacheScope}",${page.slice(1)}`);
}

export async function getPrompt(params: Params, ctx: CallContext) {
  const catalog = await ctx.catalog();
  const route = catalog.route(params?.name, ctx.cfg.separator);
  if (route.kind === 'remote') return getRemote(ctx, route.origin, params?.arguments);
  return catalog.get(params?.name, params?.arguments, ctx.version);
}
