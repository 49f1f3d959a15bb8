/**
 * W3C Trace Context carried in a request's `_meta` (OTel's MCP conventions:
 * `_meta.traceparent` / `_meta.tracestate`). Validated before anything is
 * kept, so a malformed or forged value never reaches a log line or an
 * upstream; an upstream request continues the same trace with a new parent id.
 */
import type { RequestRecord } from './record.js';

/** Version 00: `00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`, lower case, neither id all zeros. */
const TRACEPARENT = /^00-(?!0{32})([0-9a-f]{32})-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** tracestate: at most 512 characters of printable ASCII (W3C list members; not parsed further). */
const TRACESTATE = /^[\x20-\x7e]{1,512}$/;

/** Keeps the trace context of a request's `_meta` on its record, when valid and none is kept yet (a batch: the first). */
export function readTraceContext(record: RequestRecord, meta: unknown): void {
  if (record.traceparent !== undefined || typeof meta !== 'object' || meta === null) return;
  const { traceparent, tracestate } = meta as { traceparent?: unknown; tracestate?: unknown };
  if (typeof traceparent !== 'string' || !TRACEPARENT.test(traceparent)) return;
  record.traceparent = traceparent;
  if (typeof tracestate === 'string' && TRACESTATE.test(tracestate)) record.tracestate = tracestate;
}

/** The trace id of a validated traceparent. */
export const traceIdOf = (traceparent: string): string => traceparent.slice(3, 35);

/** A traceparent for a request made on this one's behalf: the same trace and flags, a fresh parent id. */
export function childTraceparent(traceparent: string): string {
  const id = new Uint8Array(8);
  do crypto.getRandomValues(id);
  while (id.every((b) => b === 0));
  const hex = Array.from(id, (b) => b.toString(16).padStart(2, '0')).join('');
  return `00-${traceIdOf(traceparent)}-${hex}-${traceparent.slice(53, 55)}`;
}

/** The `_meta` entries that carry a request's trace context to an upstream (empty without one). */
export function traceMeta(record: RequestRecord): Record<string, string> {
  if (record.traceparent === undefined) return {};
  const meta: Record<string, string> = { traceparent: childTraceparent(record.traceparent) };
  if (record.tracestate !== undefined) meta.tracestate = record.tracestate;
  return meta;
}
