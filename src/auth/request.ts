/**
 * What an OAuth check needs of the request (config, env, the audience the
 * token must name, how to word the 401 challenge), and the principal a set
 * of verified claims names: shared by JWT verification and introspection.
 */
import type { Principal } from '../lib/scope.js';
import type { AuthConfig } from './config.js';
import type { IssuerConfig } from './issuers.js';
import { AuthError } from './errors.js';
import { claimsPrincipal, scopesOf } from './principal.js';

export interface OAuthRequest {
  readonly cfg: AuthConfig;
  readonly env: Env;
  /** The audience tokens must name when the issuer entry does not set one. */
  readonly resource: string;
  /** The WWW-Authenticate value of a 401 with this description. */
  readonly challengeFor: (description: string) => string;
}

export const invalidToken = (r: OAuthRequest, why: string) =>
  new AuthError(401, 'invalid_token', why, r.challengeFor(why));

/**
 * `oauth:<iss>#<sub>`: the subject; else the user the token is for (an introspection answer may
 * leave `sub` out, RFC 7662); else, for a client acting for itself, its client id. A user's token
 * never falls back to its client id: every user of that client would be one principal, sharing
 * sessions and private pages.
 */
function subjectOf(r: OAuthRequest, claims: Record<string, unknown>): string {
  const sub = claims.sub ?? claims.username ?? claims.client_id;
  if (typeof sub !== 'string' || !sub) throw invalidToken(r, 'The token names no subject');
  return sub;
}

export function oauthPrincipal(r: OAuthRequest, entry: IssuerConfig, claims: Record<string, unknown>): Principal {
  return claimsPrincipal(r.cfg, {
    id: `oauth:${entry.issuer}#${subjectOf(r, claims)}`,
    method: 'oauth',
    claims,
    groupsClaim: entry.groupsClaim,
    ...(entry.scopePrefix && { scopes: new Set([...scopesOf(claims)].map((x) => entry.scopePrefix + x)) }),
  });
}
