/**
 * Method tables and the per-message call: params in, result or JSON-RPC
 * error out. The era entries decide transport concerns; this decides what
 * a method means, which methods each era has, and the modern result shape
 * (`resultType` and serverInfo in `_meta` on every result).
 */
import { LookupError } from '../catalog/errors.js';
import { CallCancelled } from './cancels.js';
import type { CallContext, Handler } from './context.js';
import type { Era } from './era.js';
import { callFailed, ErrorCode, HttpError, isRetryable, RpcError, toRpcError, unavailable } from './errors.js';
import { clip, MAX_METHOD } from '../lib/clip.js';
import { resultMessage, type Message, type Params } from './envelope.js';
import { complete } from './methods/completion.js';
import { discover } from './methods/discover.js';
import { getPrompt, listPrompts } from './methods/prompts.js';
import { ping, setLevel } from './methods/utility.js';
import { listResources, listResourceTemplates, readResource } from './methods/resources.js';
import { getSkill, listSkills } from './methods/skills.js';
import { callTool, listTools } from './methods/tools.js';
import type { Config } from '../lib/config.js';
import { modernResult } from './modern-result.js';
import { log } from '../lib/log.js';
import type { CallFact, RequestRecord } from '../lib/record.js';
import { readTraceContext } from '../lib/trace-context.js';
import { inSpan } from './span.js';

const SHARED: Record<string, Handler> = {
  'prompts/list': listPrompts,
  'prompts/get': getPrompt,
  'completion/complete': complete,
  'tools/list': listTools,
  'tools/call': callTool,
  'skills/list': listSkills,
  'skills/get': getSkill,
  'resources/list': listResources,
  'resources/templates/list': listResourceTemplates,
  'resources/read': readResource,
};

/** Methods a deployment serves only with a feature on; off, they are unknown methods (-32601, 404 in the modern era). */
const GATED: Record<string, (cfg: Config) => boolean> = {
  'tools/list': (c) => c.toolsMirror,
  'tools/call': (c) => c.toolsMirror,
  'skills/list': (c) => c.skills,
  'skills/get': (c) => c.skills,
  'resources/list': (c) => c.skills,
  'resources/templates/list': (c) => c.skills,
  'resources/read': (c) => c.skills,
};

/** 2026-07-28 removed ping and logging/setLevel, and added server/discover (subscriptions/listen is a stream: modern.ts). */
const METHODS: Record<Era, Record<string, Handler>> = {
  legacy: { ...SHARED, ping, 'logging/setLevel': setLevel },
  modern: { ...SHARED, 'server/discover': discover },
};

export function hasMethod(era: Era, method: string, cfg: Config): boolean {
  return Object.hasOwn(METHODS[era], method) && (!Object.hasOwn(GATED, method) || GATED[method]!(cfg));
}

function asRpcError(e: unknown, method: string): RpcError {
  if (e instanceof LookupError) return new RpcError(ErrorCode.InvalidParams, e.message, e.detail);
  if (!(e instanceof RpcError)) log.error('method failed', { method, error: String(e), stack: (e as Error)?.stack });
  return toRpcError(e);
}

/** The message of -32601, in either era: the method is client input, quoted back cut to its bound. */
export const methodNotFoundMessage = (method: string): string => `Method not found: ${clip(method, MAX_METHOD)}`;

const methodNotFound = (method: string) => new RpcError(ErrorCode.MethodNotFound, methodNotFoundMessage(method));

/**
 * Starts the record of a call (lib/record.ts) as soon as the entry has read it, so a call refused
 * before it is dispatched (a bad envelope, an unknown session) still names its method and prompt.
 */
export function factOf(record: RequestRecord, msg: Extract<Message, { kind: 'request' }>): CallFact {
  const fact = record.call(msg.method, msg.id);
  fact.prompt = promptNameOf(msg.method, msg.params);
  const meta = msg.params?._meta;
  if (meta !== undefined) readTraceContext(record, meta);
  return fact;
}

/** The prompt a call is about (`gen_ai.prompt.name`), when its params name one as a string. */
function promptNameOf(method: string, params: Params): string | undefined {
  const name =
    method === 'prompts/get' || method === 'tools/call'
      ? params?.name
      : method === 'completion/complete'
        ? (params?.ref as { name?: unknown } | undefined)?.name
        : undefined;
  return typeof name === 'string' ? name.slice(0, 200) : undefined;
}

/** The reply for a settled result; serializing is inside the caller's catch, so a bad result is still an answer. */
function reply(msg: Extract<Message, { kind: 'request' }>, ctx: CallContext, result: unknown): string {
  return resultMessage(msg.id, ctx.era === 'modern' ? modernResult(result, ctx.version) : result);
}

/**
 * Runs one request and returns its JSON-RPC reply as a string, inside the
 * call's span (span.ts). A handler that answers synchronously (a warm
 * prompts/list) gets a synchronous reply: no promise is made on the hot path.
 */
export function call(
  msg: Extract<Message, { kind: 'request' }>,
  ctx: CallContext,
  fact: CallFact = factOf(ctx.record, msg),
): string | Promise<string> {
  const handler = hasMethod(ctx.era, msg.method, ctx.cfg) ? METHODS[ctx.era][msg.method] : undefined;
  if (!handler) return callFailed(fact, msg.id, methodNotFound(msg.method));
  fact.dispatched = true;
  return inSpan(run, handler, msg, ctx, fact);
}

function run(
  handler: Handler,
  msg: Extract<Message, { kind: 'request' }>,
  ctx: CallContext,
  fact: CallFact,
): string | Promise<string> {
  const failed = (e: unknown): string => {
    // Cancelled by its client: no reply at all (the era's entry closes the request: cancels.ts).
    if (e instanceof CallCancelled) {
      fact.errorCode = ErrorCode.RequestCancelled;
      throw e;
    }
    // A modern method may end the exchange with an HTTP status (-32021 found only once an upstream was asked): app.onError answers it, with the id.
    // So does a session its object found ended mid-call, in either era: 404, as every later request gets.
    if (e instanceof HttpError && (ctx.era === 'modern' || e.code === ErrorCode.SessionNotFound)) {
      fact.errorCode = e.code;
      throw new HttpError(e.status, e.code, e.message, { data: e.data, headers: e.headers, id: msg.id });
    }
    // An object reset or overloaded under the call (a session's, an upstream's): the whole request
    // is safe to repeat, and 503 says so where an in-band -32603 would read as a bug. app.onError
    // logs it, with the cause, as any retryable failure of the request; a batch answers it as its
    // item's error (legacy.ts), which never reaches app.onError, so the item's is logged here.
    if (isRetryable(e)) {
      if (ctx.record.batch) log.warn('call failed, retryable', { method: msg.method, error: String(e) });
      fact.errorCode = ErrorCode.InternalError;
      throw Object.assign(unavailable(msg.id), { cause: e });
    }
    return callFailed(fact, msg.id, asRpcError(e, msg.method));
  };
  try {
    const result = handler(msg.params, ctx, fact);
    if (result instanceof Promise) return result.then((r) => reply(msg, ctx, r)).catch(failed);
    return reply(msg, ctx, result);
  } catch (e) {
    return failed(e);
  }
}
