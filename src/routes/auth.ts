/**
 * The access-control middleware of /mcp, /prompts and /admin: runs
 * auth/authenticate.ts once per request and puts the principal on the
 * request's scope before the route runs. Refusals are thrown for the app's
 * one onError to render. On /admin a failed credential is left to the admin
 * API's own token check, so it keeps counting towards the lock-out there.
 */
import type { MiddlewareHandler } from 'hono';
import { authenticate, authorize, type Guarded } from '../auth/authenticate.js';
import { AuthError } from '../auth/errors.js';
import { ANONYMOUS, NOBODY } from '../auth/principal.js';
import type { AppEnv } from '../env.js';
import { methodOf, scopeOf, setPrincipal } from './scope.js';
import { authenticateGuarded, uncheckedAdminBearer } from './token-guesses.js';

/**
 * Every request header a caller's identity may come from: a bearer token or API key, Cloudflare
 * Access's assertion, or its session cookie. A response that depends on who asks varies on all of
 * them, so a browser never reuses one caller's copy for the next (another Access sign-in, say).
 */
export const IDENTITY_HEADERS = 'Authorization, Cf-Access-Jwt-Assertion, Cookie';

export function identify(route: Guarded): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // A CORS preflight carries no credentials by design; the route answers it.
    if (methodOf(c) === 'OPTIONS') return next();
    const scope = scopeOf(c);
    let principal;
    try {
      // Guesses at ADMIN_TOKEN are counted here (token-guesses.ts); /admin's token check counts its own.
      principal = route === 'admin' ? await authenticate(scope) : await authenticateGuarded(c, scope);
    } catch (e) {
      if (route === 'admin' && e instanceof AuthError && e.status === 503) await uncheckedAdminBearer(c);
      if (route !== 'admin' || !(e instanceof AuthError) || e.status !== 401) throw e;
      principal = NOBODY;
    }
    setPrincipal(scope, principal);
    // On /admin, whoever is neither an admin nor a verified non-admin meets the admin token check next.
    if (route !== 'admin' || (principal !== NOBODY && principal !== ANONYMOUS)) authorize(scope, principal, route);
    await next();
  };
}
