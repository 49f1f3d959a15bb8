/**
 * OAUTH_ISSUERS (docs/access-control.md, "Configuration"): a JSON array of the
 * authorization servers whose tokens the gateway accepts, each checked with
 * its index in the message ("OAUTH_ISSUERS[1].jwksUri: ...").
 */
import { AuthConfigError, canonicalResource, checkUrl } from './config-checks.js';

export interface IntrospectionConfig {
  readonly endpoint: string;
  readonly clientId: string;
  /** The *name* of the Worker secret that holds the client secret. */
  readonly clientSecret: string;
}

export interface IssuerConfig {
  readonly issuer: string;
  readonly jwksUri: string | undefined;
  readonly jwks: { keys: Record<string, unknown>[] } | undefined;
  /** Undefined: AUTH_RESOURCE, or the request's origin + /mcp. */
  readonly audience: string | undefined;
  readonly groupsClaim: string;
  readonly requireTyp: string | undefined;
  /**
   * Put in front of each scope this issuer's tokens carry (Entra ID: clients ask for
   * `api://<app>/prompts.read`, tokens say `prompts.read`), so one OAUTH_SCOPE_READ names both.
   */
  readonly scopePrefix: string;
  readonly introspection: IntrospectionConfig | undefined;
  /**
   * Only opaque tokens that start with this are offered to this issuer's introspection (`""`: any).
   * Needed when more than one issuer introspects: a token goes only to the issuer that minted it.
   */
  readonly tokenPrefix: string | undefined;
}

const str = (v: unknown): v is string => typeof v === 'string' && v !== '';

function issuerOf(raw: unknown, i: number, loopback: boolean): IssuerConfig {
  const at = `OAUTH_ISSUERS[${i}]`;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new AuthConfigError(at, 'must be an object');
  const e = raw as Record<string, unknown>;
  if (!str(e.issuer)) throw new AuthConfigError(at, '"issuer" is required');
  checkUrl(e.issuer, `${at}.issuer`, loopback);
  if (e.jwksUri !== undefined) checkUrl(e.jwksUri, `${at}.jwksUri`, loopback);
  const jwks = e.jwks as { keys?: unknown } | undefined;
  if (jwks !== undefined && (!jwks || typeof jwks !== 'object' || !Array.isArray(jwks.keys)))
    throw new AuthConfigError(at, '"jwks" must be a JWK set ({"keys": [...]})');
  for (const k of ['audience', 'groupsClaim', 'requireTyp', 'scopePrefix'] as const)
    if (e[k] !== undefined && !str(e[k])) throw new AuthConfigError(at, `"${k}" must be a non-empty string`);
  let introspection: IntrospectionConfig | undefined;
  if (e.introspection !== undefined) {
    const t = e.introspection as Record<string, unknown>;
    if (!t || typeof t !== 'object' || !str(t.endpoint) || !str(t.clientId) || !str(t.clientSecret))
      throw new AuthConfigError(at, '"introspection" needs endpoint, clientId and clientSecret (a secret\'s name)');
    checkUrl(t.endpoint, `${at}.introspection.endpoint`, loopback);
    introspection = { endpoint: t.endpoint, clientId: t.clientId, clientSecret: t.clientSecret };
  }
  if (e.tokenPrefix !== undefined && (typeof e.tokenPrefix !== 'string' || !introspection))
    throw new AuthConfigError(at, '"tokenPrefix" is a string, for an issuer with "introspection"');
  return {
    issuer: e.issuer,
    jwksUri: e.jwksUri as string | undefined,
    jwks: jwks as IssuerConfig['jwks'],
    audience: e.audience === undefined ? undefined : canonicalResource(checkUrlish(e.audience as string, at)),
    groupsClaim: (e.groupsClaim as string | undefined) ?? 'groups',
    requireTyp: e.requireTyp as string | undefined,
    scopePrefix: (e.scopePrefix as string | undefined) ?? '',
    introspection,
    tokenPrefix: e.tokenPrefix,
  };
}

/** Audiences are usually URLs (canonicalised); an IdP may also use a plain identifier (kept as is). */
function checkUrlish(aud: string, at: string): string {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(aud)) return aud;
  try {
    return canonicalResource(aud);
  } catch {
    throw new AuthConfigError(at, `"audience" ${JSON.stringify(aud)} is not a URL`);
  }
}

/** The issuers, in order; none when the var is unset or empty. */
export function issuersOf(raw: unknown, loopback: boolean): IssuerConfig[] {
  if (raw === undefined || raw === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(raw));
  } catch {
    throw new AuthConfigError('OAUTH_ISSUERS', 'is not valid JSON');
  }
  if (!Array.isArray(parsed)) throw new AuthConfigError('OAUTH_ISSUERS', 'must be a JSON array');
  const issuers = parsed.map((e, i) => issuerOf(e, i, loopback));
  if (new Set(issuers.map((e) => e.issuer)).size !== issuers.length)
    throw new AuthConfigError('OAUTH_ISSUERS', 'names an issuer twice');
  // An opaque token names no issuer: offered to every introspecting one, each would see the others' users' tokens.
  const introspecting = issuers.filter((e) => e.introspection);
  if (introspecting.length > 1 && introspecting.some((e) => e.tokenPrefix === undefined))
    throw new AuthConfigError(
      'OAUTH_ISSUERS',
      'has more than one issuer with "introspection": give each a "tokenPrefix" (how its opaque tokens start; "" for any) so a token is only sent to the issuer that minted it',
    );
  return issuers;
}
