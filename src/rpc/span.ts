/**
 * One span per JSON-RPC call through Workers' native tracing (custom spans,
 * exported over OTLP when `[observability.traces]` is on): named
 * `{mcp.method.name} {gen_ai.prompt.name}` (OTel's MCP conventions), opened
 * where the method and prompt are known, so the KV, Durable Object and
 * upstream spans of the call nest inside it. Attributes are those of the
 * log line (lib/attributes.ts), set when the call settles and only when the
 * span is sampled. `TRACE_SPANS=off`, or a runtime without `tracing`,
 * runs the call as it is.
 */
import { tracing } from 'cloudflare:workers';
import { callAttributes } from '../lib/attributes.js';
import { callRecord, type CallFact } from '../lib/record.js';
import type { CallContext, Handler } from './context.js';
import type { Message } from './envelope.js';

/** What a span needs of the runtime's tracing API (`Tracing` in worker-configuration.d.ts). */
export interface Tracer {
  enterSpan<T, A extends unknown[]>(name: string, callback: (span: SpanLike, ...args: A) => T, ...args: A): T;
}

export interface SpanLike {
  readonly isTraced: boolean;
  setAttribute(key: string, value?: string | number | boolean): void;
}

/** Undefined where the runtime has no tracing (older workerd); tests may put a recording tracer here. */
let tracer: Tracer | undefined = typeof tracing?.enterSpan === 'function' ? tracing : undefined;

/** Replaces the tracer (tests record spans with it); returns the previous one. */
export function useTracer(next: Tracer | undefined): Tracer | undefined {
  const previous = tracer;
  tracer = next;
  return previous;
}

export function spanName(fact: CallFact): string {
  return fact.prompt === undefined ? fact.method : `${fact.method} ${fact.prompt}`;
}

function annotate(span: SpanLike, ctx: CallContext, fact: CallFact): void {
  const attrs = callAttributes({}, ctx.record, fact, ctx.principal.id);
  // The client's trace id is an attribute here: the span itself belongs to the Worker's own trace.
  for (const key in attrs) span.setAttribute(key === 'trace_id' ? 'promptgate.trace_id' : key, attrs[key]);
}

type Request = Extract<Message, { kind: 'request' }>;
type Run = (handler: Handler, msg: Request, ctx: CallContext, fact: CallFact) => string | Promise<string>;

/** The call's context with a record of its own (a batch's calls run at once: each span names its own upstream). */
const withOwnRecord = (ctx: CallContext): CallContext =>
  Object.create(ctx, { record: { value: callRecord(ctx.record) } }) as CallContext;

function inside(
  span: SpanLike,
  run: Run,
  handler: Handler,
  msg: Request,
  shared: CallContext,
  fact: CallFact,
): string | Promise<string> {
  if (!span.isTraced) return run(handler, msg, shared, fact);
  const ctx = shared.record.batch ? withOwnRecord(shared) : shared;
  const out = run(handler, msg, ctx, fact);
  if (typeof out === 'string') {
    annotate(span, ctx, fact);
    return out;
  }
  return out.finally(() => annotate(span, ctx, fact));
}

/** Runs one call inside its span; no closure, and no promise added to a synchronous call. */
export function inSpan(
  run: Run,
  handler: Handler,
  msg: Request,
  ctx: CallContext,
  fact: CallFact,
): string | Promise<string> {
  if (tracer === undefined || !ctx.cfg.traceSpans) return run(handler, msg, ctx, fact);
  return tracer.enterSpan(spanName(fact), inside, run, handler, msg, ctx, fact);
}
