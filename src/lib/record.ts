/**
 * What one request did, filled in by the layers as they learn it and read
 * once when the response is ready (routes/observe.ts): the log line, the
 * span, Server-Timing and usage counts all come from this one object, so no
 * layer logs or counts on its own. Plain fields on one object per request
 * (plus one per JSON-RPC call): the hot path only assigns.
 */
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { MAX_METHOD, printable } from './clip.js';

/** Which layer answered a listing or a get (docs/observability.md). */
export type CacheLayer = 'isolate' | 'edge' | 'kv' | 'upstream';

/** A client as it names itself (clientInfo of initialize, or the modern `_meta` clientInfo), bounded. */
export interface ClientLabel {
  readonly name: string;
  readonly version: string;
}

/** Longest name or version kept of a client's self-description: it is client input, and goes on every log line. */
export const MAX_CLIENT_FIELD = 64;

/** One field of a label: its control characters shown, not kept (usage rows reach terminals), then cut. */
const labelField = (text: string): string => printable(text).slice(0, MAX_CLIENT_FIELD);

/** A clientInfo (initialize's, the modern `_meta` one, a session's) as a label; undefined unless its name is a string. */
export function clientLabel(info: unknown): ClientLabel | undefined {
  if (typeof info !== 'object' || info === null) return undefined;
  const { name, version } = info as { name?: unknown; version?: unknown };
  if (typeof name !== 'string') return undefined;
  return { name: labelField(name), version: typeof version === 'string' ? labelField(version) : '' };
}

/** One JSON-RPC request inside the HTTP request (a legacy batch has several). */
export class CallFact {
  /** `gen_ai.prompt.name`: prompts/get's (and the mirror's tools/call's) `name`, completion/complete's `ref.name`. */
  prompt: string | undefined = undefined;
  /** The JSON-RPC error code of the reply, in-band or as an HTTP error; undefined on success. */
  errorCode: number | undefined = undefined;
  /** Handed to its method (rpc/dispatch.ts): a call refused before (its envelope, headers, session) never looked at its name. */
  dispatched = false;
  /**
   * The prompt's usage key (usage/count.ts) in the view that routed the call, null when that view
   * does not list it. Set on the path that may list upstreams, whose view (one merged for a
   * never-listed upstream) the isolate may not serve yet when the call is counted; undefined on the
   * warm path, which routed by the catalog served, so the hot path pays nothing for it.
   */
  usageKey: string | null | undefined = undefined;
  /**
   * The call was answered with a tool execution error (`isError`, the tools mirror's argument
   * problems): a result, not a JSON-RPC error, yet a failure, which OTel's MCP conventions name
   * `error.type: tool_error`.
   */
  toolError = false;

  constructor(
    readonly method: string,
    readonly id: RequestId | undefined,
  ) {}
}

export class RequestRecord {
  /** Epoch ms when the request reached the Worker (Workers advance the clock at I/O only). */
  readonly start: number = Date.now();
  era: 'legacy' | 'modern' | undefined = undefined;
  /** `mcp.protocol.version`: the negotiated (legacy) or enveloped (modern) revision. */
  version: string | undefined = undefined;
  client: ClientLabel | undefined = undefined;
  /** `mcp.session.id`: the legacy session the request was served in (initialize: the one it opened). */
  sessionId: string | undefined = undefined;
  /** W3C trace context from `_meta.traceparent`, once validated. */
  traceparent: string | undefined = undefined;
  tracestate: string | undefined = undefined;
  /** The layer that answered; in a batch, the last call's (each call's own span: callRecord). */
  cache: CacheLayer | undefined = undefined;
  /** The upstream asked on this request's behalf, and how long it took (ms). */
  upstream: string | undefined = undefined;
  upstreamMs: number | undefined = undefined;
  readonly calls: CallFact[] = [];
  /** The JSON-RPC code of the error body app.onError sent, if it sent one: what `error.type` names. */
  answeredCode: number | undefined = undefined;
  /** A JSON-RPC batch (2025-03-26): an HTTP error answers the whole of it, so it echoes no call's id. */
  batch = false;

  /** The id of the one request a single message carried, once read: an HTTP error raised later still echoes it. */
  get soleId(): RequestId | undefined {
    return !this.batch && this.calls.length === 1 ? this.calls[0]!.id : undefined;
  }

  /** Starts the record of one JSON-RPC call; a client's method name longer than any real one is cut. */
  call(method: string, id: RequestId | undefined): CallFact {
    const fact = new CallFact(method.length > MAX_METHOD ? method.slice(0, MAX_METHOD) : method, id);
    this.calls.push(fact);
    return fact;
  }
}

/** What a call in a batch learns for itself: which layer answered it and which upstream it asked. */
const PER_CALL: ReadonlySet<string> = new Set(['cache', 'upstream', 'upstreamMs']);

/**
 * One call's view of its request's record, for a batch whose calls run at once: its cache layer and
 * upstream are its own (its span names them, not a sibling's), and also written through to the
 * request's (the line and Server-Timing keep the last). Every other field is the request's.
 */
export function callRecord(record: RequestRecord): RequestRecord {
  const shared = record as unknown as Record<string, unknown>;
  const mine: Record<string, unknown> = {};
  const own = Object.create(record) as RequestRecord;
  for (const key of Object.keys(record)) {
    const set = PER_CALL.has(key)
      ? (v: unknown) => void (mine[key] = shared[key] = v)
      : (v: unknown) => void (shared[key] = v);
    const get = PER_CALL.has(key) ? () => mine[key] : () => shared[key];
    Object.defineProperty(own, key, { get, set, enumerable: true });
  }
  return own;
}

/** `error.type` of a tool execution error (CallFact.toolError). */
export const TOOL_ERROR = 'tool_error';

/**
 * One call's `error.type`, for its log line, its span and its usage count alike: a tool execution
 * error answered as a result is `tool_error`; otherwise as `errorTypeOf` says.
 */
export function callErrorType(call: CallFact, status: number): string | undefined {
  const code = call.errorCode;
  return call.toolError && code === undefined && status < 400 ? TOOL_ERROR : errorTypeOf(code, status);
}

/**
 * `error.type` (docs/observability.md): the JSON-RPC error code as a string when the request
 * failed with one, else the HTTP status of a failed request (OTel's HTTP conventions), else undefined.
 */
export function errorTypeOf(code: number | undefined, status: number): string | undefined {
  if (code !== undefined) return String(code);
  return status >= 400 ? String(status) : undefined;
}

/** How the HTTP request ended, as routes/observe.ts hands it from the log line to usage counting. */
export interface Outcome {
  readonly status: number;
  readonly durationMs: number;
}
