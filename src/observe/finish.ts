/**
 * The end of a request: its status and error settle onto its record, and the
 * record becomes its one log line and, on /mcp and /prompts, its
 * Server-Timing header (docs/observability.md). The spans were made by the
 * calls themselves (rpc/span.ts).
 */
import { NOBODY } from '../auth/principal.js';
import type { Outcome } from '../lib/record.js';
import type { RequestScope } from '../lib/scope.js';
import { logRequest } from './log-line.js';
import { serverTiming, withServerTiming } from './server-timing.js';

/** The paths whose responses carry Server-Timing: the MCP endpoint and the CDN listings. */
const TIMED = /^\/(mcp|prompts)(\/|$)/;

export function finishRequest(
  scope: RequestScope,
  method: string,
  path: string,
  res: Response,
): Outcome & { response: Response } {
  const record = scope.record;
  const last = record.calls.at(-1);
  // An HTTP error (app.onError answered it) ends the call it was raised for, if one was read: its
  // code is the one of the body sent, whatever was thrown (a reset, a bug, a stream limit).
  const errorCode = record.answeredCode;
  if (last && last.errorCode === undefined) last.errorCode = errorCode;
  const durationMs = Date.now() - record.start;
  // One read: each crosses into the runtime.
  const status = res.status;
  const principal = scope.principal === NOBODY ? undefined : scope.principal.id;
  logRequest(record, { method, path, status, durationMs, principal, errorCode });
  const response = TIMED.test(path) ? withServerTiming(res, serverTiming(record, durationMs)) : res;
  return { status, durationMs, response };
}
