/**
 * Bearer checks as the node auth suites make them: a request scope for an issuer whose tokens are
 * introspected at the key server (key-server.ts), and the AuthError a token meets, if any.
 */
import { authConfigOf } from '../../../src/auth/config.js';
import { AuthError } from '../../../src/auth/errors.js';
import { tokenDigest } from '../../../src/auth/memo.js';
import { bearerPrincipal } from '../../../src/auth/oauth.js';
import type { OAuthRequest } from '../../../src/auth/request.js';
import type { KeyServer } from '../key-server.js';

/** AUTH=oauth with the key server's issuer, its tokens introspected, for `resource`. */
export function introspectingRequest(ks: KeyServer, resource: string): OAuthRequest {
  const env = {
    AUTH: 'oauth',
    AUTH_ALLOW_HTTP_LOOPBACK: 'true',
    OAUTH_ISSUERS: JSON.stringify([
      {
        issuer: ks.issuer,
        introspection: { endpoint: `${ks.issuer}/introspect`, clientId: ks.clientId, clientSecret: 'S' },
      },
    ]),
    S: ks.clientSecret,
  } as unknown as Env;
  return { cfg: authConfigOf(env), env, resource, challengeFor: (why) => why };
}

/** AUTH=oauth with one introspecting issuer per key server, in order, each taking the tokens that start with its prefix. */
export function prefixedIssuersRequest(issuers: [KeyServer, tokenPrefix: string][], resource: string): OAuthRequest {
  const secrets = Object.fromEntries(issuers.map(([k], i) => [`S${i}`, k.clientSecret]));
  const entries = issuers.map(([k, tokenPrefix], i) => ({
    issuer: k.issuer,
    introspection: { endpoint: `${k.issuer}/introspect`, clientId: k.clientId, clientSecret: `S${i}` },
    tokenPrefix,
  }));
  const env = {
    AUTH: 'oauth',
    AUTH_ALLOW_HTTP_LOOPBACK: 'true',
    OAUTH_ISSUERS: JSON.stringify(entries),
    ...secrets,
  } as unknown as Env;
  return { cfg: authConfigOf(env), env, resource, challengeFor: (why) => why };
}

/** The AuthError a bearer token meets, or undefined when it is accepted. */
export async function refusal(r: OAuthRequest, token: string): Promise<AuthError | undefined> {
  try {
    await bearerPrincipal(r, token, await tokenDigest(token));
    return undefined;
  } catch (e) {
    if (e instanceof AuthError) return e;
    throw e;
  }
}
