/**
 * The one log line of a request (docs/observability.md, "The log line"):
 * `msg: "request"` and the record's attributes (lib/attributes.ts) beside
 * the HTTP ones, through lib/log.ts. A batch is named by its first failed
 * call, else its first call (`promptgate.calls` counts them).
 */
import { KEY_PREFIX } from '../catalog/keys-table.js';
import { callAttributes, MAX_LOGGED_PATH } from '../lib/attributes.js';
import { clip } from '../lib/clip.js';
import { log } from '../lib/log.js';
import type { CallFact, RequestRecord } from '../lib/record.js';

export interface Ended {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly durationMs: number;
  /** The principal's id once access control named one; never a credential. */
  readonly principal: string | undefined;
  /** The JSON-RPC code of an HTTP error raised before any call was read (a parse error, a bad envelope). */
  readonly errorCode: number | undefined;
}

/** An API key's shape (its prefix and base64url), wherever it stands in a path. */
const KEY_IN_PATH = new RegExp(`${KEY_PREFIX}[A-Za-z0-9_-]+`, 'g');

/**
 * The path as logged: clipped, and with anything shaped like an API key blanked. A key pasted
 * where a key id belongs (`DELETE /admin/keys/pg_…`) is a live secret that must not reach the logs.
 */
export function loggedPath(path: string): string {
  const clipped = clip(path, MAX_LOGGED_PATH);
  return clipped.includes(KEY_PREFIX) ? clipped.replace(KEY_IN_PATH, `${KEY_PREFIX}[redacted]`) : clipped;
}

/** The call the line speaks of: the first that failed (a tool execution error too), else the first. */
function callOf(calls: readonly CallFact[]): CallFact | undefined {
  for (const c of calls) if (c.errorCode !== undefined || c.toolError) return c;
  return calls[0];
}

export function requestFields(record: RequestRecord, end: Ended): Record<string, string | number> {
  const fields: Record<string, string | number> = {
    'http.request.method': end.method,
    'url.path': loggedPath(end.path),
    'http.response.status_code': end.status,
    duration_ms: end.durationMs,
  };
  callAttributes(fields, record, callOf(record.calls), end.principal, end.status, end.errorCode);
  if (record.calls.length > 1) fields['promptgate.calls'] = record.calls.length;
  return fields;
}

export function logRequest(record: RequestRecord, end: Ended): void {
  log.info('request', requestFields(record, end));
}
