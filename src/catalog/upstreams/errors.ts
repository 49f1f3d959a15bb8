/**
 * How an upstream failed. `kind` is the coarse class the client's callers
 * branch on (rpc errors are the upstream's own answers; everything else is
 * a fault of the upstream). `fault` names the fault precisely, for
 * operators: it leads each upstream's `lastError` in /status.
 */
import { clip } from '../../lib/clip.js';

export type UpstreamErrorKind = 'timeout' | 'http' | 'protocol' | 'rpc' | 'cancelled';

/**
 * - timeout: no complete answer within the upstream's timeout (one deadline per operation)
 * - unreachable: the connection failed (refused, reset before any answer, DNS)
 * - http_<status>: an HTTP error status (http_500, http_401, ...)
 * - redirect_refused: the upstream answered 3xx, or its HTTP+SSE endpoint named another origin; never followed
 * - too_large: the reply (or one SSE event) passed the byte cap; the rest was not read
 * - invalid_json: the reply or an event was not JSON
 * - closed: the upstream closed the reply before it was complete
 * - protocol: well-formed JSON that is not a valid MCP answer
 * - rpc_error: the upstream answered with a JSON-RPC error
 * - credentials: the upstream's OAuth token could not be obtained (its token endpoint failed; oauth.ts)
 * - cancelled: the downstream client cancelled the call (no fault of the upstream; the breaker ignores it)
 */
export type UpstreamFault =
  | 'timeout'
  | 'unreachable'
  | `http_${number}`
  | 'redirect_refused'
  | 'too_large'
  | 'invalid_json'
  | 'closed'
  | 'protocol'
  | 'rpc_error'
  | 'credentials'
  | 'cancelled';

/**
 * An upstream's own words (its JSON-RPC error message, an exception's text) are kept to this many
 * characters: they are logged, stored in its row and the catalog snapshot (/status, the web
 * catalog), and passed to clients, and a 3 MB message must not fail the row's write.
 */
export const MAX_FAULT_TEXT = 1_000;

export class UpstreamError extends Error {
  readonly fault: UpstreamFault;
  constructor(
    readonly kind: UpstreamErrorKind,
    message: string,
    readonly code?: number,
    readonly data?: unknown,
    fault?: UpstreamFault,
  ) {
    super(clip(message, MAX_FAULT_TEXT));
    this.fault =
      fault ?? (kind === 'http' ? (code ? `http_${code}` : 'unreachable') : kind === 'rpc' ? 'rpc_error' : kind);
  }
}

/** `fault: message`, the form /status shows. */
export function describeFault(e: unknown): string {
  return e instanceof UpstreamError ? `${e.fault}: ${e.message}` : `protocol: ${clip(String(e), MAX_FAULT_TEXT)}`;
}
