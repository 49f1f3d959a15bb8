/**
 * Forwarding prompts/get and completion/complete to the upstream that owns a
 * name, with the upstream's own name. An upstream's -32602 stays -32602;
 * timeouts and failures become -32603 with a message naming the upstream.
 * Upstream content is untrusted: messages are capped and shaped for the
 * client's revision, and `_meta` records where the prompt came from.
 */
import type { PromptMessage } from '@modelcontextprotocol/sdk/types.js';
import { ORIGIN_META, shapeContent } from '../../catalog/shape.js';
import type { PromptOrigin } from '../../catalog/types.js';
import { upstreamStub } from '../../catalog/upstreams/object.js';
import { featuresOf } from '../../lib/versions.js';
import type { CallContext } from '../context.js';
import { ErrorCode, RpcError } from '../errors.js';
import { isInputRequired, relayInputRequired } from './input-required.js';

const MAX_MESSAGES = 100;
const MAX_RESULT_BYTES = 1_000_000;

async function forward(ctx: CallContext, origin: PromptOrigin, method: 'prompts/get' | 'completion/complete', params: Record<string, unknown>) {
  const r = await upstreamStub(ctx.env, origin.upstream).forward(origin.upstream, method, params);
  if (r.ok) return r.result;
  throw new RpcError(r.code === ErrorCode.InvalidParams ? ErrorCode.InvalidParams : ErrorCode.InternalError, r.message, r.data);
}

/** `relayed`: what input-required.ts adds for a modern client (its capabilities, and a retry's responses and state). */
export async function getRemote(ctx: CallContext, origin: PromptOrigin, args: unknown, relayed: Record<string, unknown> = {}) {
  const result = await forward(ctx, origin, 'prompts/get', args === undefined ? { ...relayed, name: origin.name } : { ...relayed, name: origin.name, arguments: args });
  if (isInputRequired(result)) return relayInputRequired(ctx, origin, result, relayed);
  if (JSON.stringify(result).length > MAX_RESULT_BYTES) throw new RpcError(ErrorCode.InternalError, `Upstream "${origin.upstream}" returned a prompt over ${MAX_RESULT_BYTES} bytes`);
  const f = featuresOf(ctx.version);
  const messages = (Array.isArray(result.messages) ? (result.messages as PromptMessage[]) : []).slice(0, MAX_MESSAGES).map((m) => ({
    role: m.role === 'assistant' ? ('assistant' as const) : ('user' as const),
    content: shapeContent(m.content, f),
  }));
  const out: Record<string, unknown> = { messages };
  if (typeof result.description === 'string') out.description = result.description.slice(0, 4000);
  if (f.titles) out._meta = { [ORIGIN_META]: origin };
  return out;
}

export async function completeRemote(ctx: CallContext, origin: PromptOrigin, params: Record<string, unknown>) {
  // The client's `_meta` (its modern envelope, progress token) describes the other hop: never forwarded.
  const { _meta: _ignored, ...rest } = params;
  const ref = params.ref as Record<string, unknown>;
  const result = await forward(ctx, origin, 'completion/complete', { ...rest, ref: { ...ref, name: origin.name } });
  const c = (result.completion ?? {}) as { values?: unknown; total?: unknown; hasMore?: unknown };
  const values = (Array.isArray(c.values) ? c.values : []).filter((v): v is string => typeof v === 'string').slice(0, 100);
  return { completion: { values, ...(typeof c.total === 'number' ? { total: c.total } : {}), hasMore: c.hasMore === true || (typeof c.total === 'number' && c.total > values.length) } };
}
