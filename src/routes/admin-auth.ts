/**
 * Who may use /admin: the ADMIN_TOKEN (the break-glass bearer, compared in
 * constant time as SHA-256 digests, so not even its length leaks), or a
 * principal that access control (routes/auth.ts) found to be an admin.
 * The token is always accepted; a principal that is known but not an admin
 * gets 403 otherwise; wrong tokens count towards the lock-out (limits.ts). A
 * request with no bearer at all is refused (401) without counting: it guesses
 * nothing, and another site's page can send any number of them in the
 * visitor's name (an <img>), which would lock the visitor out. With no token
 * and no principal the admin API does not exist (404), so a forgotten secret
 * fails closed.
 *
 * A write from another site's page is refused before any of that (crossSiteWrite): with Cloudflare
 * Access the credential is a cookie the browser sends by itself, and a form posted from anywhere
 * would act as the signed-in admin. The CLI and other API clients send no Origin.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.js';
import { tokenEqual } from '../lib/hmac.js';
import type { Principal } from '../lib/scope.js';
import { ApiError } from './api-error.js';
import { authFailed } from './limits.js';
import { headerOf, scopeOf } from './scope.js';

/** The principal access control established, if any; `none` (AUTH=none) proves nothing about /admin. */
function principalOf(c: Context<AppEnv>): Principal | undefined {
  const p = scopeOf(c).principal;
  return p && p.method !== 'none' ? p : undefined;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** 403 for a write a browser sends from another origin or site (its Origin, or Sec-Fetch-Site). */
export const crossSiteWrite: MiddlewareHandler<AppEnv> = (c, next) => {
  if (READS.has(c.req.method)) return next();
  const origin = headerOf(c, 'origin');
  const site = headerOf(c, 'sec-fetch-site');
  if ((origin !== undefined && origin !== new URL(c.req.url).origin) || site === 'cross-site' || site === 'same-site')
    throw new ApiError(403, 'cross_site', 'The admin API takes no writes from another site’s page');
  return next();
};

export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  const principal = principalOf(c);
  if (principal?.admin === true) return next();
  const expected = (c.env as { ADMIN_TOKEN?: string }).ADMIN_TOKEN;
  const given = /^Bearer (.+)$/i.exec(headerOf(c, 'authorization') ?? '')?.[1] ?? '';
  // The break-glass token is always accepted, whoever else the request names (docs/access-control.md).
  if (expected && (await tokenEqual(given, expected))) return next();
  // Known but not an admin: its bearer is its own credential, not a guess at the token (no lock-out count).
  if (principal) throw new ApiError(403, 'forbidden', `${principal.id} may not use the admin API`);
  if (!expected)
    throw new ApiError(404, 'admin_disabled', 'The admin API is disabled: set the ADMIN_TOKEN secret to enable it');
  if (given !== '') await authFailed(c);
  c.header('www-authenticate', 'Bearer realm="promptgate-admin"');
  throw new ApiError(401, 'unauthorized', 'A valid Authorization: Bearer <ADMIN_TOKEN> header is required');
};

/** Who is writing, for the version history and a key's createdBy: the admin principal, or `admin` (ADMIN_TOKEN). */
export function actor(c: Context<AppEnv>): string {
  const p = principalOf(c);
  return p?.admin === true ? p.id : 'admin';
}
