/**
 * The pure half of UpstreamObject.forward: which of an upstream's own names
 * a client's request reaches (none: the request is answered as unknown, and
 * the upstream is never asked), the params rewritten to that name, and the
 * plain result a failure crosses the RPC boundary as. The breaker, the client
 * and the call stay in upstream-object.ts.
 */
import { clip } from '../../lib/clip.js';
import { servedOriginal } from './access.js';
import { UpstreamError } from './client.js';
import type { UpstreamConfig } from './schema.js';
import { clientUri, mountOf } from './skill-entries.js';

export type ForwardMethod = 'prompts/get' | 'completion/complete' | 'resources/read';

export type ForwardResult =
  | { ok: true; result: Record<string, unknown> }
  | {
      ok: false;
      kind: 'rpc' | 'timeout' | 'unavailable' | 'failed' | 'unknown' | 'cancelled';
      code: number;
      message: string;
      data?: unknown;
    };

/** What a client asked for: its full name, and the catalog's guess at the upstream's own name. */
export interface ForwardTarget {
  asked: string;
  original: string;
}

/** The answer for a name (or skill URI) this upstream does not serve under the current configuration. */
export function unknownTarget(method: ForwardMethod, asked: string): ForwardResult {
  const shown = clip(asked, 100);
  return method === 'resources/read'
    ? { ok: false, kind: 'unknown', code: -32602, message: `Resource not found: ${shown}`, data: { uri: asked } }
    : { ok: false, kind: 'unknown', code: -32602, message: `Unknown prompt "${shown}"` };
}

/**
 * The upstream's own name (or URI) for the target, or null when the configuration does not publish
 * it: a skill URI must be the client's URI under the upstream's current mount, and a prompt name
 * must be one the upstream's allow, deny and alias rules serve (access.ts).
 */
export function upstreamNameOf(
  u: UpstreamConfig,
  separator: string,
  method: ForwardMethod,
  target: ForwardTarget,
): string | null {
  if (method !== 'resources/read') return servedOriginal(u, separator, target.asked, target.original);
  const { original } = target;
  return original.startsWith('skill://') && clientUri(mountOf(u), original) === target.asked ? original : null;
}

/** The params as the upstream must see them: its own name (or URI) in place of the client's. */
export function renamed(
  method: ForwardMethod,
  params: Record<string, unknown>,
  original: string,
): Record<string, unknown> {
  if (method === 'resources/read') return { ...params, uri: original };
  if (method === 'prompts/get') return { ...params, name: original };
  return { ...params, ref: { ...(params.ref as Record<string, unknown>), name: original } };
}

/** The upstream's own JSON-RPC error, passed on as it is (not a fault of the upstream: the breaker does not count it). */
export function rpcFailure(e: unknown): ForwardResult | undefined {
  if (!(e instanceof UpstreamError) || e.kind !== 'rpc') return undefined;
  return { ok: false, kind: 'rpc', code: e.code ?? -32603, message: e.message, data: e.data };
}

/** A call its downstream client cancelled: no answer is owed to anyone (the caller sends none). */
export function cancelledCall(e: unknown): ForwardResult | undefined {
  if (!(e instanceof UpstreamError) || e.kind !== 'cancelled') return undefined;
  return { ok: false, kind: 'cancelled', code: -32800, message: 'Request cancelled' };
}

/**
 * HTTP statuses by which an upstream refuses one request for what it carried (a body too large for
 * it, content it will not take), not for being down: a caller's arguments must not open the breaker
 * that every other caller's calls go through.
 */
const REQUEST_REFUSALS = new Set([400, 413, 414, 415, 422]);

export const refusedRequest = (e: unknown): boolean =>
  e instanceof UpstreamError && e.kind === 'http' && e.code !== undefined && REQUEST_REFUSALS.has(e.code);

/** A fault of the call (timeout, transport, protocol): `fault` is its description, as the breaker counted it. */
export function callFailure(e: unknown, u: UpstreamConfig, fault: string): ForwardResult {
  if (e instanceof UpstreamError && e.kind === 'timeout')
    return {
      ok: false,
      kind: 'timeout',
      code: -32603,
      message: `Upstream "${u.id}" did not answer within ${u.timeoutMs} ms (timeout)`,
    };
  return { ok: false, kind: 'failed', code: -32603, message: `Upstream "${u.id}" failed: ${fault}` };
}
