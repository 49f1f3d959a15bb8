/**
 * RFC 7662 token introspection for opaque tokens, at each configured issuer
 * that offers it, with client_secret_basic authentication (the secret is
 * read from the Worker secret the issuer entry names). An active answer
 * must name this gateway's audience (the MCP authorization spec: a server
 * accepts only tokens issued for itself; an answer without `aud` cannot
 * show that), must not name another issuer, and must be for an access token
 * used as a bearer (a refresh token or a DPoP-bound token is no credential
 * here, whatever its issuer calls it). An answer over the byte cap (reply.ts)
 * is no answer: 503, as for an endpoint that cannot be reached. An endpoint
 * that failed is not asked again for the keys' cooldown: tokens arriving
 * meanwhile are answered 503 at once instead of each waiting on it.
 */
import type { Principal } from '../lib/scope.js';
import { AuthConfigError } from './config-checks.js';
import type { IssuerConfig } from './issuers.js';
import { AuthError } from './errors.js';
import { COOLDOWN_MS } from './keys.js';
import { replyJson } from './reply.js';
import { oauthPrincipal, type OAuthRequest } from './request.js';

/** A revoked token stops working within this long, whatever its `exp` says. */
export const INTROSPECTION_TTL_MS = 60_000;
const FETCH_TIMEOUT_MS = 5_000;
/** RFC 7662 `token_type` values (compared lower-cased) that name a bearer access token. */
const BEARER_TYPES = new Set(['bearer', 'access_token', 'urn:ietf:params:oauth:token-type:access_token']);

/** Introspection endpoint -> until when it is not asked again, after a failure. */
const downUntil = new Map<string, number>();

export interface Introspected {
  /** Undefined: no issuer knows the token as active. */
  readonly principal: Principal | undefined;
  /** Until when the answer may be reused. */
  readonly until: number;
}

/** RFC 6749 §2.3.1: client id and secret are form-encoded before Basic encoding. */
const form = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');

const unavailable = (why: string) => new AuthError(503, undefined, why, undefined);

/** The active answer for `token`, undefined when inactive; an AuthError(503) when there is no answer. */
async function ask(r: OAuthRequest, entry: IssuerConfig, token: string): Promise<Record<string, unknown> | undefined> {
  const t = entry.introspection!;
  if ((downUntil.get(t.endpoint) ?? 0) > Date.now())
    throw unavailable('The authorization server failed moments ago; retry later');
  try {
    return await askNow(r, entry, token);
  } catch (e) {
    if (e instanceof AuthError) downUntil.set(t.endpoint, Date.now() + COOLDOWN_MS);
    throw e;
  }
}

async function askNow(
  r: OAuthRequest,
  entry: IssuerConfig,
  token: string,
): Promise<Record<string, unknown> | undefined> {
  const t = entry.introspection!;
  const secret = (r.env as unknown as Record<string, unknown>)[t.clientSecret];
  if (typeof secret !== 'string' || !secret)
    throw new AuthConfigError(
      'OAUTH_ISSUERS',
      `the secret ${t.clientSecret} (introspection of ${entry.issuer}) is not set`,
    );
  let res: Response;
  try {
    res = await fetch(t.endpoint, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      headers: {
        authorization: `Basic ${btoa(`${form(t.clientId)}:${form(secret)}`)}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
    });
  } catch {
    throw unavailable('The authorization server could not be reached; retry later');
  }
  let body: Record<string, unknown> | null = null;
  if (!res.ok) await res.body?.cancel();
  else body = (await replyJson(res, t.endpoint).catch(() => null)) as Record<string, unknown> | null;
  if (!body || typeof body !== 'object')
    throw unavailable('The authorization server gave no usable introspection answer');
  downUntil.delete(t.endpoint);
  return body.active === true ? body : undefined;
}

/** Whether an active introspection answer is for this gateway (RFC 7662 §4: the resource server checks it). */
function forUs(r: OAuthRequest, entry: IssuerConfig, claims: Record<string, unknown>): boolean {
  if (claims.iss !== undefined && claims.iss !== entry.issuer) return false;
  const type = claims.token_type;
  if (type !== undefined && !(typeof type === 'string' && BEARER_TYPES.has(type.toLowerCase()))) return false;
  // Some servers (ORY Hydra) name the kind of token in `token_use` instead.
  if (claims.token_use !== undefined && claims.token_use !== 'access_token') return false;
  const aud = claims.aud;
  const audience = entry.audience ?? r.resource;
  if (!(Array.isArray(aud) ? aud.includes(audience) : aud === audience)) return false;
  const now = Date.now() / 1000;
  if (typeof claims.exp === 'number' && claims.exp + 60 < now) return false;
  return !(typeof claims.nbf === 'number' && claims.nbf - 60 > now);
}

/**
 * The principal the first issuer that knows `token` as active names. An issuer that gives no
 * answer does not stop the others being asked; if none knows the token and one gave no answer,
 * the verdict is that issuer's 503 (the token may be its), never "inactive".
 */
export async function introspect(r: OAuthRequest, token: string): Promise<Introspected> {
  const now = Date.now();
  let failure: AuthError | undefined;
  for (const entry of r.cfg.issuers) {
    if (!entry.introspection) continue;
    // Never sent to an issuer that did not mint it (issuers.ts tokenPrefix).
    if (entry.tokenPrefix !== undefined && !token.startsWith(entry.tokenPrefix)) continue;
    let claims: Record<string, unknown> | undefined;
    try {
      claims = await ask(r, entry, token);
    } catch (e) {
      if (!(e instanceof AuthError)) throw e;
      failure ??= e;
      continue;
    }
    if (!claims || !forUs(r, entry, claims)) continue;
    const principal = oauthPrincipal(r, entry, claims);
    return { principal, until: Math.min(principal.expiresAt ?? Infinity, now + INTROSPECTION_TTL_MS) };
  }
  if (failure) throw failure;
  return { principal: undefined, until: now + INTROSPECTION_TTL_MS };
}
