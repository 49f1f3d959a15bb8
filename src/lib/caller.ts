/**
 * How the layers below the routes use the request's principal (lib/scope.ts): its id binds
 * sessions, its credential's life bounds streams. `undefined` (a caller with no principal) counts
 * as the anonymous principal with no groups (docs/access-control.md).
 */
import { sha256Hex } from './hash.js';
import type { Principal } from './scope.js';

export const ANONYMOUS_ID = 'anonymous';

/** The id sessions are bound to. */
export function principalIdOf(p: Principal | undefined): string {
  return p ? p.id : ANONYMOUS_ID;
}

/**
 * Who the caller is, as a 16-byte digest (edge-cache keys of private pages, input-request state): an
 * authenticated principal by its id, whatever credential named it; an unauthenticated one (AUTH=none)
 * by what it sent as Authorization, the one thing that tells such callers apart. Not memoised, so no
 * token is kept in memory.
 */
export function callerDigest(p: Principal | undefined, authorization: string | undefined): Promise<string> {
  return sha256Hex(p && p.method !== 'none' ? `principal/v2|${p.id}` : `principal/v1|${authorization ?? ''}`, 16);
}

/**
 * Whether a stream opened with this principal may go on (asked at each keepalive): false once the
 * credential has expired or its recheck says so. Undefined for a principal whose streams never end
 * for that reason (none, or anonymous).
 */
export function credentialCheck(p: Principal | undefined): (() => boolean | Promise<boolean>) | undefined {
  if (!p || p.method === 'none') return undefined;
  return () => {
    if (p.expiresAt !== undefined && Date.now() >= p.expiresAt) return false;
    return p.recheck();
  };
}
