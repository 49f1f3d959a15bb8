/**
 * Forwarding prompts/get and completion/complete to the upstream that owns a
 * name. The upstream object decides whether the name exists for clients
 * (allow/deny and aliases are an access boundary, not a listing filter) and
 * maps it to the upstream's own name. An upstream's -32602 stays -32602 and
 * speaks of the name the client sent; its other errors, timeouts and
 * failures become -32603 naming the upstream. Upstream content is
 * untrusted: messages are sanitised like listings (sanitize-content.ts),
 * capped, and shaped for the client's revision, and `_meta` records where
 * the prompt came from.
 */
import type { PromptMessage } from '@modelcontextprotocol/sdk/types.js';
import { ORIGIN_META, shapeContent } from '../../catalog/shape.js';
import type { PromptOrigin } from '../../catalog/types.js';
import { sanitizeContent } from '../../catalog/upstreams/sanitize-content.js';
import { featuresOf } from '../../lib/versions.js';
import { forwardUpstream } from '../cancels.js';
import type { CallContext } from '../context.js';
import { ErrorCode, RpcError } from '../errors.js';
import { isInputRequired, relayInputRequired } from './input-required.js';
import { isRecord } from '../../lib/json.js';
import { utf8Length } from '../../catalog/arguments.js';
import { traceMeta } from '../../lib/trace-context.js';

/** What the gateway itself put in `_meta` (input-required.ts: relayed capabilities); never the client's own. */
const metaOf = (params: Record<string, unknown>): Record<string, unknown> =>
  isRecord(params._meta) ? params._meta : {};

const MAX_MESSAGES = 100;

/** The upstream's own -32602 for a prompt it was asked for (a missing argument, a name it no longer serves). */
export class UpstreamInvalidParams extends RpcError {}
/** The upstream has no such method (-32601): for completion, one that offers none (completeRemote). */
class UpstreamMethodNotFound extends RpcError {}
/** The upstream's -32021: the client lacks a capability it needs (input-required.ts translates it for prompts/get). */
export class UpstreamMissingCapability extends RpcError {}
const MAX_RESULT_BYTES = 1_000_000;

/** `text` with the upstream's own name for the prompt, where it stands as a whole name, replaced by the client's. */
function inClientTerms(text: string, original: string, asked: string): string {
  if (!original || original === asked) return text;
  const escaped = original.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`(?<![A-Za-z0-9_.-])${escaped}(?![A-Za-z0-9_-])`, 'g'), asked);
}

async function forward(
  ctx: CallContext,
  origin: PromptOrigin,
  asked: string,
  method: 'prompts/get' | 'completion/complete',
  params: Record<string, unknown>,
) {
  // The client's trace continues upstream with a new parent id; nothing else of its `_meta` goes along.
  const trace = traceMeta(ctx.record);
  const sent = trace.traceparent === undefined ? params : { ...params, _meta: { ...metaOf(params), ...trace } };
  const record = ctx.record;
  record.upstream = origin.upstream;
  const started = Date.now();
  const r = await forwardUpstream(ctx, origin.upstream, method, sent, { asked, original: origin.name }).finally(
    () => (record.upstreamMs = Date.now() - started),
  );
  if (r.ok) return r.result;
  const data = boundedData(r.data);
  if (r.code === ErrorCode.InvalidParams)
    throw new UpstreamInvalidParams(
      ErrorCode.InvalidParams,
      r.kind === 'rpc' ? inClientTerms(r.message, origin.name, asked) : r.message,
      data,
    );
  const Failure =
    r.kind !== 'rpc'
      ? RpcError
      : r.code === ErrorCode.MethodNotFound
        ? UpstreamMethodNotFound
        : r.code === ErrorCode.MissingRequiredClientCapability
          ? UpstreamMissingCapability
          : RpcError;
  throw new Failure(
    ErrorCode.InternalError,
    r.kind === 'rpc' ? `Upstream "${origin.upstream}": ${r.message}` : r.message,
    data,
  );
}

/** The most of an upstream error's `data` passed on, in UTF-8 bytes of its JSON; its message is clipped too. */
const MAX_ERROR_DATA_BYTES = 16_384;

/** An upstream error's `data` as the client gets it: as it came when small, else left out, with why. */
function boundedData(data: unknown): unknown {
  if (data === undefined) return undefined;
  const bytes = utf8Length(JSON.stringify(data) ?? '');
  return bytes <= MAX_ERROR_DATA_BYTES ? data : { omitted: `the upstream's error data, ${bytes} bytes` };
}

/**
 * `asked`: the name the client sent (the upstream object checks it is still served, and names it in errors).
 * `relayed`: what input-required.ts adds for a modern client (its capabilities, and a retry's responses and state).
 */
export async function getRemote(
  ctx: CallContext,
  origin: PromptOrigin,
  args: unknown,
  asked: string,
  relayed: Record<string, unknown> = {},
) {
  const result = await forward(
    ctx,
    origin,
    asked,
    'prompts/get',
    args === undefined ? { ...relayed } : { ...relayed, arguments: args },
  );
  // In UTF-8 bytes, as the limit says, and before an input request is relayed too: it is a result as well.
  if (utf8Length(JSON.stringify(result)) > MAX_RESULT_BYTES)
    throw new RpcError(
      ErrorCode.InternalError,
      `Upstream "${origin.upstream}" returned a prompt over ${MAX_RESULT_BYTES} bytes`,
    );
  if (isInputRequired(result)) return relayInputRequired(ctx, origin, asked, result, relayed);
  const f = featuresOf(ctx.version);
  const messages = (Array.isArray(result.messages) ? (result.messages as PromptMessage[]) : [])
    .slice(0, MAX_MESSAGES)
    .flatMap((m) => {
      const content = sanitizeContent(m?.content);
      return content
        ? [
            {
              role: m.role === 'assistant' ? ('assistant' as const) : ('user' as const),
              content: shapeContent(content, f),
            },
          ]
        : [];
    });
  const out: Record<string, unknown> = { messages };
  if (typeof result.description === 'string') out.description = result.description.slice(0, 4000);
  if (f.titles) out._meta = { [ORIGIN_META]: origin };
  return out;
}

export async function completeRemote(ctx: CallContext, origin: PromptOrigin, params: Record<string, unknown>) {
  // The client's `_meta` (its modern envelope, progress token) describes the other hop: never forwarded.
  const { _meta: _ignored, ...rest } = params;
  const asked = String((params.ref as Record<string, unknown>).name);
  // This gateway declares completions for every prompt: one whose upstream offers none has no values.
  const result: Record<string, unknown> = await forward(ctx, origin, asked, 'completion/complete', rest).catch(
    (e: unknown) => {
      if (e instanceof UpstreamMethodNotFound) return {};
      throw e;
    },
  );
  const c = (result.completion ?? {}) as { values?: unknown; total?: unknown; hasMore?: unknown };
  const offered = (Array.isArray(c.values) ? c.values : []).filter((v): v is string => typeof v === 'string');
  const values = offered.slice(0, 100);
  // An integer, as clients check it: any other total would make them refuse the whole result.
  const total = Number.isSafeInteger(c.total) && (c.total as number) >= 0 ? (c.total as number) : undefined;
  return {
    completion: {
      values,
      ...(total !== undefined ? { total } : {}),
      // A cut made here is more the client was not sent, whatever the upstream said of a total.
      hasMore: c.hasMore === true || offered.length > values.length || (total !== undefined && total > values.length),
    },
  };
}
