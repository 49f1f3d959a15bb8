/**
 * Why a catalog lookup failed. The catalog knows nothing of JSON-RPC; the rpc
 * layer maps every reason here to -32602 Invalid params with this message.
 */
export type LookupReason = 'unknown_prompt' | 'missing_argument' | 'invalid_argument' | 'invalid_cursor';

export class LookupError extends Error {
  constructor(
    readonly reason: LookupReason,
    message: string,
    readonly detail?: Record<string, unknown>,
  ) {
    super(message);
  }
}
