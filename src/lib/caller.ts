/**
 * How the layers below the routes use the request's principal (lib/scope.ts): its id binds
 * sessions, its credential's life bounds streams. Until access control sets one, `undefined`
 * is the anonymous principal with no groups (docs/access-control.md).
 */
import type { Principal } from './scope.js';

export const ANONYMOUS_ID = 'anonymous';

/** The id sessions are bound to. */
export function principalIdOf(p: Principal | undefined): string {
  return p ? p.id : ANONYMOUS_ID;
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
