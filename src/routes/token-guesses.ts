/**
 * ADMIN_TOKEN is a bearer on every route (docs/access-control.md), so it can be guessed anywhere,
 * not only at /admin: /prompts answers 200 or 401, /status and the catalog pages show more to the
 * token. Outside /admin, each distinct bearer that could be such a guess and is not accepted
 * counts towards the same lock-out as a wrong token at /admin (limits.ts authFailed); a client
 * repeating one bearer (a leftover header, a retry loop) counts once. While a client is locked
 * out, its opaque bearers are answered 429 unless they name a real principal (a valid introspected
 * token), so a guess, right or wrong, learns nothing and the client's own users are still served.
 * JWTs and API keys do not count: each is checked against its issuer or the key table, so no
 * guess at the token is made with one.
 */
import type { Context } from 'hono';
import { authenticate, bearerOf, mayBeAdminToken } from '../auth/authenticate.js';
import { AuthError } from '../auth/errors.js';
import type { AppEnv } from '../env.js';
import { sha256Hex } from '../lib/hash.js';
import { BoundedMap } from '../lib/memo.js';
import type { Principal, RequestScope } from '../lib/scope.js';
import { authFailed, clientOf, isLockedOut, lockedOutError, RATE_PERIOD_S } from './limits.js';
import { headerOf } from './scope.js';

/**
 * Failed bearers already counted, by client and a digest of the bearer (never the bearer), until
 * when (ms). A cryptographic digest: with a short hash, a guesser would pick bearers that share one
 * and have only the first of each bucket counted.
 */
const counted = new BoundedMap<string, number>(10_000);

/** The request's bearer when it could be a guess at ADMIN_TOKEN: neither a JWT nor an API key. */
function opaqueBearer(c: Context<AppEnv>): string | undefined {
  const token = bearerOf(headerOf(c, 'authorization'));
  return token !== undefined && mayBeAdminToken(token) ? token : undefined;
}

/** Counts a failed guess, once per client and bearer per period; throws the 429 once there were too many. */
async function guessed(c: Context<AppEnv>, bearer: string): Promise<void> {
  const key = `${clientOf(c)}|${await sha256Hex(bearer, 16)}`;
  const until = counted.get(key);
  if (until !== undefined && until > Date.now()) return;
  counted.set(key, Date.now() + RATE_PERIOD_S * 1000);
  await authFailed(c);
}

/**
 * /admin after its issuer could not be asked (503): the bearer is still a guess at the token, counted
 * like any other (the admin API's own check never runs for a request that ends here).
 */
export async function uncheckedAdminBearer(c: Context<AppEnv>): Promise<void> {
  const bearer = opaqueBearer(c);
  if (bearer !== undefined) await guessed(c, bearer);
}

/** authenticate() for the routes other than /admin, with the lock-out applied to opaque bearers. */
export async function authenticateGuarded(c: Context<AppEnv>, scope: RequestScope): Promise<Principal> {
  const bearer = opaqueBearer(c);
  if (bearer === undefined) return authenticate(scope);
  const locked = isLockedOut(c);
  let p: Principal;
  try {
    p = await authenticate(scope);
  } catch (e) {
    // A 503 (the issuer's introspection could not be asked) too: the token was compared before any
    // issuer was, so an outage, which a flood of bearers can help cause, must not lift the cap.
    if (e instanceof AuthError && (e.status === 401 || e.status === 503)) {
      if (locked) throw lockedOutError(c);
      await guessed(c, bearer);
    }
    throw e;
  }
  // The token itself, or a bearer let in as nobody in particular (AUTH=none): a guess either way.
  if (p.method === 'admin' || p.method === 'none') {
    if (locked) throw lockedOutError(c);
    if (p.method === 'none') await guessed(c, bearer);
  }
  return p;
}
