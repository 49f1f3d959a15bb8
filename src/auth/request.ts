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

/** The claims that name a principal, in order, and the prefix of the id each makes. */
const ID_CLAIMS = [
  ['sub', 'oauth'],
  ['username', 'oauth-user'],
  ['client_id', 'oauth-client'],
] as const;

/**
 * The principal id a token names: `oauth:<iss>#<sub>` for its subject; else, for the user the token
 * is for (an introspection answer may leave `sub` out, RFC 7662), `oauth-user:<iss>#<username>`;
 * else, for a client acting for itself, `oauth-client:<iss>#<client_id>`. Each kind has its own
 * prefix: an issuer's user names and client ids are not its subjects, so a client registered as
 * `alice` must not become the subject `alice` (her sessions, her private pages). A user's token never
 * falls back to its client id: every user of that client would be one principal.
 */
function idOf(r: OAuthRequest, issuer: string, claims: Record<string, unknown>): string {
  for (const [claim, kind] of ID_CLAIMS) {
    const value = claims[claim];
    if (value == null) continue;
    if (typeof value !== 'string' || !value) break;
    return `${kind}:${issuer}#${value}`;
  }
  throw invalidToken(r, 'The token names no subject');
}

export function oauthPrincipal(r: OAuthRequest, entry: IssuerConfig, claims: Record<string, unknown>): Principal {
  return claimsPrincipal(r.cfg, {
    id: idOf(r, entry.issuer, claims),
    method: 'oauth',
    claims,
    groupsClaim: entry.groupsClaim,
    ...(entry.scopePrefix && { scopes: new Set([...scopesOf(claims)].map((x) => entry.scopePrefix + x)) }),
  });
}
