/**
 * resources/list, resources/templates/list and resources/read: the skills' files as `skill://`
 * resources (docs/skills-serving.md). Served only with SKILLS on (dispatch.ts gates them).
 * resources/list names each visible skill's SKILL.md; resources/read serves any file of a visible
 * skill, local ones by digest (catalog/skills/files.ts), upstream ones through their upstream.
 */
import { narrowHints, ownHints, readHints } from '../../catalog/hints.js';
import { listing } from '../../catalog/listing.js';
import { fileContents, skillFileBytes } from '../../catalog/skills/files.js';
import { RESOURCES } from '../../catalog/skills/lists.js';
import { MAX_SKILL_FILE_BYTES, SKILL_FILE_LIMIT } from '../../catalog/skills/validate.js';
import type { CallContext } from '../context.js';
import type { Params } from '../envelope.js';
import { ErrorCode, invalidParams, resourceNotFound, RpcError } from '../errors.js';
import { listResult } from './prompts.js';
import { readRemote } from './remote-skills.js';
import { lookup } from './route.js';

export function listResources(params: Params, ctx: CallContext): unknown {
  const page = listing(ctx, ctx.version, params?.cursor, RESOURCES);
  return page instanceof Promise ? page.then((p) => listResult(p, ctx)) : listResult(page, ctx);
}

/** No templates: every skill file has its own URI. Nothing here depends on the caller: the gateway's own hints. */
export function listResourceTemplates(params: Params, ctx: CallContext): unknown {
  // No page is ever followed by another, so any cursor is one this server did not mint.
  if (params?.cursor !== undefined) throw invalidParams('Invalid cursor');
  return ctx.era === 'modern' ? { resourceTemplates: [], ...ownHints(ctx.cfg.listTtlMs) } : { resourceTemplates: [] };
}

export async function readResource(params: Params, ctx: CallContext): Promise<Record<string, unknown>> {
  const uri = params?.uri;
  if (typeof uri !== 'string') throw invalidParams('resources/read needs params.uri (a string)');
  const { view, found } = await lookup(ctx, (v) => v.skillFile(uri));
  // A file of a skill outside the caller's view is answered exactly as one that does not exist.
  if (!found) throw resourceNotFound(uri);
  const hints = view.cacheHints(ctx.cfg.listTtlMs);
  if ('local' in found) {
    const { digest, size } = found.local.record;
    // A stored record may name a file over the cap: refused by its recorded size, its bytes never read.
    if (size > MAX_SKILL_FILE_BYTES)
      throw new RpcError(
        ErrorCode.InternalError,
        `The file is ${size} bytes; resources/read serves skill files of at most ${SKILL_FILE_LIMIT}`,
        { uri, size, limit: MAX_SKILL_FILE_BYTES },
      );
    const bytes = await skillFileBytes(ctx, digest);
    // Published files are in KV before their skill is; another location may not see them yet.
    if (!bytes)
      throw new RpcError(ErrorCode.InternalError, 'The file is not available here yet; retry shortly', { uri });
    const result = { contents: [fileContents(found.local, bytes)] };
    return ctx.era === 'modern' ? { ...result, ...hints } : result;
  }
  ctx.record.cache = 'upstream';
  const { ttlMs, cacheScope, ...result } = await readRemote(ctx, found, uri);
  if (ctx.era !== 'modern') return result;
  // Never fresher or more shareable than the upstream said, nor than this view's own pages.
  return { ...result, ...narrowHints(hints, [readHints({ ttlMs, cacheScope })]) };
}
