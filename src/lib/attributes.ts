/**
 * A request's record (record.ts) as named attributes, after OpenTelemetry's
 * MCP semantic conventions (GenAI conventions) where one exists and under
 * `promptgate.` otherwise: the one vocabulary of the log line
 * (observe/log-line.ts) and the spans (rpc/span.ts). docs/observability.md
 * has the table. No credential is ever among them: the principal is its id.
 */
import { callErrorType, errorTypeOf, type CallFact, type RequestRecord } from './record.js';
import { traceIdOf } from './trace-context.js';
import { clip } from './clip.js';

export type Attributes = Record<string, string | number>;

/** Longest request id and URL path kept on a line or span: both are client input. */
export const MAX_LOGGED_ID = 200;
export const MAX_LOGGED_PATH = 512;

/** One JSON-RPC call's attributes, with the request's (era, revision, client, cache, upstream) added to `out`. */
export function callAttributes(
  out: Attributes,
  record: RequestRecord,
  fact: CallFact | undefined,
  principal: string | undefined,
  status = 200,
  /** The request's JSON-RPC error code when no call was read (an HTTP error before one). */
  requestCode?: number,
): Attributes {
  const code = fact ? fact.errorCode : requestCode;
  if (fact) {
    // An unreadable batch item may name no method.
    if (fact.method !== '') out['mcp.method.name'] = fact.method;
    // Client input: an id may be any string the body limit allows.
    if (fact.id !== undefined) out['jsonrpc.request.id'] = clip(String(fact.id), MAX_LOGGED_ID);
    if (fact.prompt !== undefined) out['gen_ai.prompt.name'] = fact.prompt;
  }
  if (record.version !== undefined) out['mcp.protocol.version'] = record.version;
  if (record.era === 'legacy' && record.sessionId !== undefined) out['mcp.session.id'] = record.sessionId;
  const errorType = fact ? callErrorType(fact, status) : errorTypeOf(code, status);
  if (errorType !== undefined) out['error.type'] = errorType;
  if (code !== undefined) out['rpc.response.status_code'] = String(code);
  if (record.era !== undefined) out['promptgate.era'] = record.era;
  if (record.client !== undefined) out['promptgate.client'] = `${record.client.name}/${record.client.version}`;
  if (principal !== undefined) out['promptgate.principal'] = principal;
  if (record.cache !== undefined) out['promptgate.cache'] = record.cache;
  if (record.upstream !== undefined) out['promptgate.upstream'] = record.upstream;
  if (record.upstreamMs !== undefined) out['promptgate.upstream_ms'] = record.upstreamMs;
  if (record.traceparent !== undefined) out['trace_id'] = traceIdOf(record.traceparent);
  return out;
}
