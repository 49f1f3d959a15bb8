/**
 * The one place JSON-RPC error bodies are built.
 *
 * `RpcError` is a JSON-RPC error that belongs inside a reply to one message
 * (HTTP 200 in the legacy era). `HttpError` additionally ends the HTTP
 * exchange with a status, and is turned into a response only by the app's
 * `onError`. Legacy transport errors use the SDK's -32000/-32001 codes and
 * never the modern -32020..-32022 codes: dual-era clients read those as
 * "this server is modern" and would not fall back to `initialize`.
 */
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { clip } from '../lib/clip.js';
import type { CallFact } from '../lib/record.js';

export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Transport-level rejection (SDK convention): headers, size, origin, version. */
  Transport: -32000,
  /** Unknown or ended session (SDK convention). */
  SessionNotFound: -32001,
  /** Modern era only: a standard header disagrees with the body, or is missing (400). */
  HeaderMismatch: -32020,
  /** Modern era only: the request lacks a client capability the method needs (400). */
  MissingRequiredClientCapability: -32021,
  /** Modern era only: the body names a revision this server does not serve (400). */
  UnsupportedProtocolVersion: -32022,
  /**
   * Never sent: a call its client cancelled gets no response. Recorded as the call's error code, so
   * the log line and usage say `-32800` (JSON-RPC's customary RequestCancelled) rather than a success.
   */
  RequestCancelled: -32800,
} as const;

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export interface HttpErrorOptions {
  /** The JSON-RPC error's `data`. */
  readonly data?: unknown;
  /** Extra response headers (Allow, Retry-After). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The request id, when it could be read before the failure. */
  readonly id?: RequestId;
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

export class HttpError extends RpcError {
  readonly headers: Readonly<Record<string, string>>;
  readonly id: RequestId | undefined;

  constructor(
    readonly status: number,
    code: number,
    message: string,
    { data, headers = NO_HEADERS, id }: HttpErrorOptions = {},
  ) {
    super(code, message, data);
    this.headers = headers;
    this.id = id;
  }
}

export interface ErrorMessage {
  jsonrpc: '2.0';
  id?: RequestId | null;
  error: { code: number; message: string; data?: unknown };
}

/**
 * A JSON-RPC error object. An id that could not be read is omitted (2025-11-25 schema), or
 * `null` (UNREAD) where the revision requires an id, as JSON-RPC 2.0 says.
 */
export function errorMessage(id: RequestId | null | undefined, err: RpcError): ErrorMessage {
  const error: ErrorMessage['error'] = { code: err.code, message: err.message };
  if (err.data !== undefined) error.data = err.data;
  return id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error };
}

/** The serialized error reply: the form every JSON-RPC error body takes on the wire. */
export function errorJson(id: RequestId | null | undefined, err: RpcError): string {
  return JSON.stringify(errorMessage(id, err));
}

/** A call answered with an in-band error: its code goes on the call (log line, error counts), its body is errorJson's. */
export function callFailed(fact: CallFact, id: RequestId | null | undefined, err: RpcError): string {
  fact.errorCode = err.code;
  return errorJson(id, err);
}

/**
 * A Durable Object that was reset, restarted or overloaded mid-call: the runtime marks the error
 * (`durableObjectReset`, `retryable`, `overloaded`). Every write path is idempotent (the writer
 * applies identical content once), so the honest answer is 503 with Retry-After, not a 500 or an
 * in-band -32603 that reads as a bug.
 */
export function isRetryable(err: unknown): boolean {
  const e = err as { retryable?: unknown; overloaded?: unknown; durableObjectReset?: unknown } | null;
  return (
    typeof e === 'object' &&
    e !== null &&
    (e.retryable === true || e.overloaded === true || e.durableObjectReset === true)
  );
}

/** The answer to a retryable failure on /mcp: 503, Retry-After: 1, the request's id when one was read. */
/** A session that ended, expired or was never ours (spec: HTTP 404); the client must initialize anew. */
export const sessionNotFound = (id?: RequestId) =>
  new HttpError(404, ErrorCode.SessionNotFound, 'Session not found', { id });

export const unavailable = (id?: RequestId) =>
  new HttpError(503, ErrorCode.InternalError, 'Temporarily unavailable; retry the request', {
    headers: { 'retry-after': '1' },
    id,
  });

/** Maps anything thrown while answering a message to a JSON-RPC error, hiding internals. */
export function toRpcError(e: unknown): RpcError {
  if (e instanceof RpcError) return e;
  return new RpcError(ErrorCode.InternalError, 'Internal error');
}

export const invalidParams = (message: string, data?: unknown) => new RpcError(ErrorCode.InvalidParams, message, data);

/**
 * Resource not found: -32602 with exactly `{uri}` as data, in every revision, whoever serves it. 2026-07-28
 * requires it (SEP-2164); the official SDK answers so on every revision too, and clients accept it
 * (2025-11-25 named -32002, which clients are told to accept as well: they recognise `data.uri`).
 */
export const resourceNotFound = (uri: string) => invalidParams(`Resource not found: ${clip(uri, 200)}`, { uri });
