/**
 * Reading an upstream skill's files through the upstream that owns them: the URI clients used, under
 * `skill://<mount>/`, becomes the upstream's own URI (docs/upstreams.md, "Upstream skills"). Upstream
 * content is untrusted: the result is bounded, only the asked file's text or blob passes, under the
 * client's URI again, and bytes the listing gave a digest and size for must match them, or nothing is
 * passed on: a gateway must not serve content that fails its own manifest.
 */
import { decodesAsBase64 } from '../../catalog/content-checks.js';
import { digestOf } from '../../catalog/skills/file-store.js';
import type { RemoteSkill } from '../../catalog/skills/index.js';
import type { SkillResourceRecord } from '../../catalog/types.js';
import { clip } from '../../lib/clip.js';
import { isRecord } from '../../lib/json.js';
import { traceMeta } from '../../lib/trace-context.js';
import { forwardUpstream } from '../cancels.js';
import type { CallContext } from '../context.js';
import { ErrorCode, resourceNotFound, RpcError } from '../errors.js';

/** Where a skill URI really lives. */
export interface SkillOrigin {
  upstream: string;
  /** The upstream's own URI. */
  uri: string;
}

/** The upstream's reply is already read within its 4 MiB cap; this bounds what is kept of it. */
const MAX_RESULT_BYTES = 4 * 1024 * 1024;
const MAX_CONTENTS = 16;
/**
 * An upstream's "not found" (-32602 per SEP-2164 and SDK 2.x, -32002 from 2025-era servers) is answered
 * as a local miss is: -32602 with `data: {uri}`, so a client sees one code whoever serves the skill.
 */
const NOT_FOUND = new Set([-32602, -32002]);

/**
 * The listed digest and size of the client's URI, from the very listing the caller's view found
 * the file in: on a cold read that is a merge not yet adopted (upstreams/cold.ts), which the
 * isolate's stored catalog does not hold.
 */
function listed(skill: RemoteSkill, asked: string): SkillResourceRecord | undefined {
  const r = skill.remote.skill.resources;
  return r === 'dynamic' ? undefined : r.find((x) => x.uri === asked);
}

function bytesOf(item: Record<string, unknown>): Uint8Array | undefined {
  if (typeof item.text === 'string') return new TextEncoder().encode(item.text);
  try {
    return Uint8Array.from(atob(item.blob as string), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/**
 * resources/read of an upstream skill file: the upstream's `contents`, with URIs as the client asked.
 * Its `ttlMs`/`cacheScope` (modern upstreams) are passed along for the caller to narrow its own hints.
 */
export async function readRemote(
  ctx: CallContext,
  { skill, origin }: { skill: RemoteSkill; origin: SkillOrigin },
  asked: string,
): Promise<Record<string, unknown>> {
  // The client's trace continues upstream; nothing else of the client's request goes along.
  const trace = traceMeta(ctx.record);
  const params = trace.traceparent === undefined ? { uri: origin.uri } : { uri: origin.uri, _meta: trace };
  const record = ctx.record;
  record.upstream = origin.upstream;
  const started = Date.now();
  const expected = listed(skill, asked);
  const r = await forwardUpstream(ctx, origin.upstream, 'resources/read', params, {
    asked,
    original: origin.uri,
  }).finally(() => (record.upstreamMs = Date.now() - started));
  if (!r.ok) {
    if (NOT_FOUND.has(r.code)) throw resourceNotFound(asked);
    throw new RpcError(
      ErrorCode.InternalError,
      r.kind === 'rpc' ? `Upstream "${origin.upstream}": ${r.message}` : r.message,
      r.data,
    );
  }
  const fail = (why: string) =>
    new RpcError(ErrorCode.InternalError, `Upstream "${origin.upstream}" ${why} for ${clip(asked, 200)}`, {
      uri: asked,
    });
  if (JSON.stringify(r.result).length > MAX_RESULT_BYTES) throw fail(`returned over ${MAX_RESULT_BYTES} bytes`);
  // Only the file asked for passes, under the client's URI: another item would be checked against
  // nothing (its listed digest is not what was asked), and could name any URI under the mount.
  const contents = (Array.isArray(r.result.contents) ? r.result.contents : [])
    .slice(0, MAX_CONTENTS)
    .flatMap((c: unknown): Record<string, unknown>[] => {
      if (!isRecord(c) || c.uri !== origin.uri) return [];
      const body =
        typeof c.text === 'string'
          ? { text: c.text }
          : typeof c.blob === 'string' && decodesAsBase64(c.blob)
            ? { blob: c.blob }
            : undefined;
      if (!body) return [];
      const item: Record<string, unknown> = { uri: asked };
      if (typeof c.mimeType === 'string' && c.mimeType.length <= 200) item.mimeType = c.mimeType;
      return [{ ...item, ...body }];
    });
  if (expected) {
    const item = contents.find((c) => c.uri === asked);
    const bytes = item && bytesOf(item);
    if (!bytes) throw fail('returned no content');
    if (bytes.byteLength !== expected.size || (await digestOf(bytes)) !== expected.digest)
      throw fail(`returned content not matching its listed digest ${expected.digest}`);
  }
  const out: Record<string, unknown> = { contents };
  const { ttlMs, cacheScope } = r.result;
  if (typeof ttlMs === 'number') out.ttlMs = ttlMs;
  if (cacheScope === 'public' || cacheScope === 'private') out.cacheScope = cacheScope;
  return out;
}
