/**
 * ADMIN_TOKEN is a bearer on every route (docs/access-control.md), so it can be guessed anywhere,
 * not only at /admin: /prompts answers 200 or 401, /status and the catalog pages show more to the
 * token. Outside /admin, a bearer that could be such a guess and is not accepted counts towards the
 * same lock-out as a wrong token at /admin (limits.ts authFailed), and a locked-out client's such
 * bearers are refused before they are checked (refuseIfLockedOut). JWTs and API keys do not
 * count: each is checked against its issuer or the key table, so no guess at the token is made
 * with one, and an expired JWT retried in a loop must not lock out everyone behind an address.
 */
import type { Context } from 'hono';
import { KEY_PREFIX } from '../catalog/keys-table.js';
import type { AppEnv } from '../env.js';
import type { Principal } from '../lib/scope.js';
import { headerOf } from './scope.js';

const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]*$/;

/** Whether the request's bearer could be a guess at ADMIN_TOKEN: present, and neither a JWT nor an API key. */
export function opaqueBearer(c: Context<AppEnv>): boolean {
  const token = /^Bearer (.+)$/i.exec(headerOf(c, 'authorization') ?? '')?.[1];
  return token !== undefined && !token.startsWith(KEY_PREFIX) && !JWT_SHAPE.test(token);
}

/**
 * Whether an opaque bearer that made `who` (undefined: refused) was a failed guess: refused, or
 * accepted as nobody in particular (AUTH=none lets any bearer in, as anonymous, but the token).
 */
export const missed = (who: Principal | undefined): boolean => who === undefined || who.method === 'none';
