/**
 * The OAuth 2.1 resource server: a bearer JWT is verified against the key
 * set of the configured issuer its `iss` names; anything else goes to RFC
 * 7662 introspection at the issuers that offer it. Both answers are
 * remembered under the token's digest (memo.ts), never longer than the
 * token is valid (introspection: at most a minute, so a revocation lands).
 */
import { decodeJwt } from 'jose';
import type { Principal } from '../lib/scope.js';
import { AuthConfigError } from './config-checks.js';
import { AuthError } from './errors.js';
import { introspect, INTROSPECTION_TTL_MS } from './introspect.js';
import { issuerKeys } from './keys.js';
import { recall, remember } from './memo.js';
import { invalidToken as invalid, oauthPrincipal, type OAuthRequest } from './request.js';
import { looksLikeJwt, verifyJwt } from './verify.js';

async function fromJwt(r: OAuthRequest, token: string): Promise<Principal> {
  let iss: unknown;
  try {
    iss = decodeJwt(token).iss;
  } catch {
    throw invalid(r, 'The token is malformed');
  }
  const entry = r.cfg.issuers.find((e) => e.issuer === iss);
  if (!entry) throw invalid(r, 'The token was not issued by a trusted issuer');
  let keys;
  try {
    keys = await issuerKeys(r.cfg, entry);
  } catch (e) {
    if (e instanceof AuthError || e instanceof AuthConfigError) throw e;
    throw new AuthError(503, undefined, 'The authorization server could not be reached; retry later', undefined);
  }
  const claims = await verifyJwt(
    token,
    keys,
    { issuer: entry.issuer, audience: entry.audience ?? r.resource, typ: entry.requireTyp },
    r.challengeFor,
  );
  return oauthPrincipal(r, entry, claims);
}

/** The principal an OAuth bearer token names, or an AuthError; `tokenDigest` is memo.ts's digest of it. */
export async function bearerPrincipal(r: OAuthRequest, token: string, tokenDigest: string): Promise<Principal> {
  // The default audience follows the request's origin: a token verified for one origin says nothing of another.
  const digest = `${r.resource} ${tokenDigest}`;
  const known = recall(r.cfg, digest);
  if (known) return known;
  if (known === null) throw invalid(r, 'The token is not active');
  if (looksLikeJwt(token)) {
    const p = await fromJwt(r, token);
    remember(r.cfg, digest, p, p.expiresAt ?? 0);
    return p;
  }
  const found = await introspect(r, token);
  const p = found.principal && revocable(r, token, found.principal);
  remember(r.cfg, digest, p, found.until);
  if (!p) throw invalid(r, 'The token is not active');
  return p;
}

/**
 * An introspected principal whose streams end once its token is revoked: at a keepalive at least
 * INTROSPECTION_TTL_MS after the last answer, the token is introspected again (an opaque token's
 * `exp`, if it has one, says nothing of revocation). An authorization server that cannot be
 * reached keeps the last answer, as for API keys.
 */
function revocable(r: OAuthRequest, token: string, p: Principal): Principal {
  let askedAt = Date.now();
  let active = true;
  return {
    ...p,
    async recheck() {
      if (!(await p.recheck())) return false;
      if (!active || Date.now() - askedAt < INTROSPECTION_TTL_MS) return active;
      askedAt = Date.now();
      try {
        active = (await introspect(r, token)).principal !== undefined;
      } catch {
        // Unreachable or unusable answer: the last one stands until the next keepalive asks again.
      }
      return active;
    },
  };
}
