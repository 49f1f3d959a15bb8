/**
 * The end of a request: its status and error settle onto its record, and the
 * record becomes one log line (docs/observability.md).
 */
import { log } from '../lib/log.js';
import type { Outcome } from '../lib/record.js';
import type { RequestScope } from '../lib/scope.js';
import { RpcError } from '../rpc/errors.js';

export function finishRequest(
  scope: RequestScope,
  method: string,
  path: string,
  res: Response,
  error: Error | undefined,
): Outcome {
  const record = scope.record;
  const last = record.calls.at(-1);
  if (last && last.errorCode === undefined && error instanceof RpcError) last.errorCode = error.code;
  const durationMs = Date.now() - record.start;
  log.info('request', { method, path, status: res.status, durationMs, mcpMethod: last?.method });
  return { status: res.status, durationMs };
}
