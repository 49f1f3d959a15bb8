/**
 * Reading an upstream skill's files (and entries) through the upstream that owns them: the URI
 * clients used, under `skill://<mount>/`, becomes the upstream's own URI. Upstream content is
 * untrusted: results are bounded and checked (docs/skills.md, "Aggregation").
 */
import type { CallContext } from '../context.js';
import { ErrorCode, RpcError } from '../errors.js';

/** Where a skill URI really lives. */
export interface SkillOrigin {
  upstream: string;
  /** The upstream's own URI. */
  uri: string;
}

/** resources/read of an upstream skill file: the upstream's `contents`, with URIs as the client asked. */
export function readRemote(_ctx: CallContext, origin: SkillOrigin, asked: string): Promise<Record<string, unknown>> {
  return Promise.reject(
    new RpcError(ErrorCode.InternalError, `Upstream "${origin.upstream}" cannot serve ${asked.slice(0, 200)} yet`),
  );
}
