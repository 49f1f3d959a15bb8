/**
 * Who is calling: the one dispatch from a request's credentials to its
 * Principal (docs/access-control.md), and the scope each guarded route
 * needs. The ADMIN_TOKEN is recognised under every AUTH setting; `pg_`
 * bearer tokens are API keys; other bearer tokens are OAuth (JWT, else
 * introspection); without Authorization, a Cloudflare Access assertion.
 * Credentials are accepted only in the Authorization header.
 */
import { encodeBase64Url } from '../lib/base64url.js';
import { log } from '../lib/log.js';
import { originOf } from '../lib/url.js';
import type { Principal, RequestScope } from '../lib/scope.js';
import { ACCESS_HEADER, accessPrincipal } from './access.js';
import { apiKeyPrincipal } from './api-key.js';
import { KEY_PREFIX } from '../catalog/keys-table.js';
import { AuthNotConfiguredError } from './config-checks.js';
import { authConfigOf, type AuthConfig } from './config.js';
import { AuthError, challenge, metadataUrl } from './errors.js';
import { digestBytes } from './memo.js';
import { bearerPrincipal } from './oauth.js';
import { looksLikeJwt } from './verify.js';
import { adminPrincipal, ANONYMOUS, hasScope } from './principal.js';

export type Guarded = 'mcp' | 'prompts' | 'admin';

const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

/** The bearer token of an Authorization header, as access control reads it; undefined when there is none. */
export const bearerOf = (authorization: string | undefined): string | undefined =>
  authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];

/** The canonical resource URL: AUTH_RESOURCE, or this origin's /mcp (URL parsing already lower-cased it). */
export function resourceOf(cfg: AuthConfig, url: string): string {
  return cfg.resource ?? `${originOf(url)}/mcp`;
}

const announced = new Set<'unset' | 'none'>();
/** Says once per isolate what is wrong (AUTH unset) or dangerous (AUTH=none). */
export function announce(cfg: AuthConfig): void {
  const kind = !cfg.configured ? 'unset' : cfg.none ? 'none' : undefined;
  if (kind === undefined || announced.has(kind)) return;
  announced.add(kind);
  if (kind === 'unset')
    log.error('AUTH is not set: /mcp, /prompts and /admin refuse every request (500 misconfigured)', {
      fix: 'set AUTH in wrangler.toml [vars] to oauth, access, apikey (comma-separated), or none to open the gateway',
    });
  else
    log.warn('AUTH=none: access control is OFF; anyone who can reach this gateway reads every prompt', {
      fix: 'set AUTH to oauth, access or apikey before exposing the gateway',
    });
}

/** How 401s of this request are worded: the PRM link (when OAuth is on) and the read scope. */
function challenger(cfg: AuthConfig, url: string) {
  const resourceMetadata = cfg.methods.has('oauth') ? metadataUrl(resourceOf(cfg, url)) : undefined;
  return (error?: 'invalid_token', description?: string) =>
    challenge({ resourceMetadata, scopes: [cfg.scopeRead], error, description });
}

/** Refuses credentials in the query string (OAuth 2.1 §5.2.3 forbids them; they end up in logs). */
function checkQuery(url: string): void {
  const q = url.indexOf('?');
  // Names are compared decoded (`access%5Ftoken` is access_token too); without a `%` the name can only
  // be spelled out, so most queries are never parsed.
  if (q < 0 || (!url.includes('access_token', q) && !url.includes('%', q))) return;
  if (new URLSearchParams(url.slice(q)).has('access_token'))
    throw new AuthError(
      400,
      'invalid_request',
      'Send credentials in the Authorization header, never in the URL',
      undefined,
    );
}

const adminDigests = new Map<string, Promise<Uint8Array>>();
/** Whether `digest` is the ADMIN_TOKEN's, in constant time (both are SHA-256 digests, so no length leaks). */
async function isAdminToken(env: Env, digest: Uint8Array): Promise<boolean> {
  const expected = (env as { ADMIN_TOKEN?: string }).ADMIN_TOKEN;
  if (!expected) return false;
  let d = adminDigests.get(expected);
  if (!d) {
    adminDigests.clear();
    adminDigests.set(expected, (d = digestBytes(expected)));
  }
  return crypto.subtle.timingSafeEqual(digest, await d);
}

/**
 * Whether a bearer may be taken for the ADMIN_TOKEN outside /admin: only an opaque one, neither an
 * API key nor JWT-shaped. Those two are checked against the key table or an issuer, so they are not
 * counted as guesses (routes/token-guesses.ts); a token of their shape must not match here either,
 * or guesses in that shape would go uncounted. Such an ADMIN_TOKEN works at /admin alone, whose own
 * check counts every failure.
 */
export const mayBeAdminToken = (token: string): boolean => !token.startsWith(KEY_PREFIX) && !looksLikeJwt(token);

/** The request's principal; AuthError (400/401/503) or AuthConfigError (500) when there is none. */
export async function authenticate(scope: RequestScope): Promise<Principal> {
  const cfg = authConfigOf(scope.env);
  if (!cfg.configured || cfg.none) announce(cfg);
  if (!cfg.configured) throw new AuthNotConfiguredError();
  checkQuery(scope.url);
  const authorization = scope.header('authorization');
  const token = bearerOf(authorization);
  const challengeOf = challenger(cfg, scope.url);
  if (token === undefined) {
    if (cfg.none) return ANONYMOUS;
    const assertion = cfg.access ? scope.header(ACCESS_HEADER) : undefined;
    if (assertion) return accessPrincipal(cfg, assertion, (why) => challengeOf('invalid_token', why));
    const why = authorization === undefined ? 'Authorization required' : 'Only Bearer credentials are accepted';
    throw new AuthError(401, undefined, why, challengeOf());
  }
  const digest = await digestBytes(token);
  if (mayBeAdminToken(token) && (await isAdminToken(scope.env, digest))) return adminPrincipal(cfg);
  if (cfg.none) return ANONYMOUS;
  const invalid = (why: string) => new AuthError(401, 'invalid_token', why, challengeOf('invalid_token', why));
  // The gateway's own key format: looked up here or refused, never offered to an issuer's introspection.
  if (token.startsWith(KEY_PREFIX)) {
    if (!cfg.methods.has('apikey')) throw invalid('API keys are not accepted here');
    const p = await apiKeyPrincipal(scope, token, digest);
    if (!p) throw invalid('Unknown, expired or revoked API key');
    return p;
  }
  if (!cfg.methods.has('oauth')) throw invalid('The token is not accepted here');
  return bearerPrincipal(
    {
      cfg,
      env: scope.env,
      resource: resourceOf(cfg, scope.url),
      challengeFor: (why) => challengeOf('invalid_token', why),
    },
    token,
    encodeBase64Url(digest),
  );
}

/** The scope a guarded route needs. */
export function requiredScope(cfg: AuthConfig, route: Guarded): string {
  return route === 'admin' ? cfg.scopeAdmin : cfg.scopeRead;
}

/** 403 insufficient_scope unless the principal may use the route (AUTH=none lets anyone read). */
export function authorize(scope: RequestScope, principal: Principal, route: Guarded): void {
  const cfg = authConfigOf(scope.env);
  if (principal === ANONYMOUS && route !== 'admin') return;
  const needed = requiredScope(cfg, route);
  if (hasScope(cfg, principal, needed)) return;
  const resourceMetadata = cfg.methods.has('oauth') ? metadataUrl(resourceOf(cfg, scope.url)) : undefined;
  throw new AuthError(
    403,
    'insufficient_scope',
    `This needs the ${needed} scope`,
    challenge({ resourceMetadata, scopes: [needed], error: 'insufficient_scope' }),
  );
}
