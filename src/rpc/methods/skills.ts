/**
 * skills/list and skills/get (the Skills extension, SEP-2640; docs/skills-serving.md). Served only with
 * SKILLS on (dispatch.ts gates them), in both eras; the modern era's results carry ttlMs/cacheScope.
 */
import { listing } from '../../catalog/listing.js';
import { describeSkill, SKILLS } from '../../catalog/skills/lists.js';
import type { CallContext } from '../context.js';
import type { Params } from '../envelope.js';
import { invalidParams } from '../errors.js';
import { listResult } from './prompts.js';
import { lookup } from './route.js';
import { clip } from '../../lib/clip.js';

export function listSkills(params: Params, ctx: CallContext): unknown {
  const page = listing(ctx, ctx.version, params?.cursor, SKILLS);
  return page instanceof Promise ? page.then((p) => listResult(p, ctx)) : listResult(page, ctx);
}

export async function getSkill(params: Params, ctx: CallContext): Promise<Record<string, unknown>> {
  const uri = params?.uri;
  if (typeof uri !== 'string') throw invalidParams('skills/get needs params.uri (a string)');
  const { view, found } = await lookup(ctx, (v) => v.skill(uri));
  // A skill outside the caller's view is answered exactly as one that does not exist.
  if (!found) throw invalidParams(`Unknown skill ${clip(uri, 200)}`, { uri });
  ctx.record.cache = 'isolate';
  const result = { skill: describeSkill(found) };
  return ctx.era === 'modern' ? { ...result, ...view.cacheHints(ctx.cfg.listTtlMs) } : result;
}
