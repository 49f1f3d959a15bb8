/**
 * prompts/list and prompts/get. List pages come pre-serialized from the
 * catalog (RawJson) so a warm list never re-encodes prompts.
 */
import { RawJson, type Params } from '../envelope.js';
import type { CallContext } from '../context.js';

export async function listPrompts(params: Params, ctx: CallContext): Promise<RawJson> {
  const catalog = await ctx.catalog();
  return new RawJson(await catalog.listPage(ctx.version, params?.cursor, ctx.cfg.pageSize, ctx.secret));
}

export async function getPrompt(params: Params, ctx: CallContext) {
  const catalog = await ctx.catalog();
  return catalog.get(params?.name, params?.arguments, ctx.version);
}
