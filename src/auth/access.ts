/**
 * Cloudflare Access: the `Cf-Access-Jwt-Assertion` JWT Access adds to every
 * request it lets through, verified against the team's certs (a cached
 * remote key set, refreshed on an unknown kid), the application's AUD tag
 * and the team domain as issuer. Whoever Access admits gets the read scope;
 * members of ADMIN_GROUPS the admin scope too.
 */
import type { Principal } from '../lib/scope.js';
import type { AccessConfig, AuthConfig } from './config.js';
import { AuthError } from './errors.js';
import { remoteKeys } from './keys.js';
import { recall, remember, tokenDigest } from './memo.js';
import { claimsPrincipal } from './principal.js';
import { verifyJwt } from './verify.js';

export const ACCESS_HEADER = 'cf-access-jwt-assertion';

function teamOf(a: AccessConfig): string {
  return new URL(a.teamDomain).host;
}

/** The principal an Access assertion names, or an AuthError (`challengeFor` words the 401). */
export async function accessPrincipal(
  cfg: AuthConfig,
  assertion: string,
  challengeFor: (description: string) => string,
): Promise<Principal> {
  const a = cfg.access!;
  const digest = `access ${await tokenDigest(assertion)}`;
  const known = recall(cfg, digest);
  if (known) return known;
  const claims = await verifyJwt(
    assertion,
    remoteKeys(`${a.teamDomain}/cdn-cgi/access/certs`),
    { issuer: a.teamDomain, audience: a.aud },
    (why) => challengeFor(`Cloudflare Access: ${why}`),
  );
  // Service tokens carry no `sub`; their common_name (the client id) names them.
  const sub = claims.sub || (claims as { common_name?: unknown }).common_name;
  if (typeof sub !== 'string' || !sub)
    throw new AuthError(401, 'invalid_token', 'Cloudflare Access: the assertion names no subject', challengeFor(''));
  const p = claimsPrincipal(cfg, {
    id: `access:${teamOf(a)}#${sub}`,
    method: 'access',
    claims,
    groupsClaim: a.groupsClaim,
    scopes: new Set([cfg.scopeRead]),
  });
  remember(cfg, digest, p, p.expiresAt ?? 0);
  return p;
}
