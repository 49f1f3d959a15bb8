/**
 * What one request did, filled in by the layers as they learn it and read
 * once when the response is ready (routes/observe.ts): the log line, the
 * span, Server-Timing and usage counts all come from this one object, so no
 * layer logs or counts on its own. Plain fields on one object per request
 * (plus one per JSON-RPC call): the hot path only assigns.
 */
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/** Which layer answered a listing or a get (docs/observability.md). */
export type CacheLayer = 'isolate' | 'edge' | 'kv' | 'upstream';

/** A client as it names itself (clientInfo of initialize, or the modern `_meta` clientInfo), bounded. */
export interface ClientLabel {
  readonly name: string;
  readonly version: string;
}

/** One JSON-RPC request inside the HTTP request (a legacy batch has several). */
export class CallFact {
  /** `gen_ai.prompt.name`: prompts/get's `name`, completion/complete's `ref.name`. */
  prompt: string | undefined = undefined;
  /** The JSON-RPC error code of the reply, in-band or as an HTTP error; undefined on success. */
  errorCode: number | undefined = undefined;

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
  /** W3C trace context from `_meta.traceparent`, once validated. */
  traceparent: string | undefined = undefined;
  tracestate: string | undefined = undefined;
  /** The layer that answered; in a batch, the last call's. */
  cache: CacheLayer | undefined = undefined;
  /** The upstream asked on this request's behalf, and how long it took (ms). */
  upstream: string | undefined = undefined;
  upstreamMs: number | undefined = undefined;
  readonly calls: CallFact[] = [];

  /** Starts the record of one JSON-RPC call. */
  call(method: string, id: RequestId | undefined): CallFact {
    const fact = new CallFact(method, id);
    this.calls.push(fact);
    return fact;
  }
}

/** How the HTTP request ended, as routes/observe.ts hands it from the log line to usage counting. */
export interface Outcome {
  readonly status: number;
  readonly durationMs: number;
}
