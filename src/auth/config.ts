/**
 * The access-control vars (docs/access-control.md, "Configuration"), parsed
 * once per `env` object like lib/config.ts. AUTH unset is not an error here:
 * /status must still say what is wrong; the guarded routes refuse with
 * AuthNotConfiguredError. Any bad value fails loudly with the var's name.
 */
import { ConfigError } from '../lib/config.js';

export type Method = 'oauth' | 'access' | 'apikey';

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
}

export interface AccessConfig {
  readonly teamDomain: string;
  readonly aud: string;
  readonly groupsClaim: string;
}

export interface AuthConfig {
  /** AUTH is set (to a valid value). */
  readonly configured: boolean;
  /** AUTH=none: no access control at all. */
  readonly none: boolean;
  readonly methods: ReadonlySet<Method>;
  /** AUTH_RESOURCE, normalised; undefined derives it from the request. */
  readonly resource: string | undefined;
  readonly issuers: readonly IssuerConfig[];
  readonly scopeRead: string;
  readonly scopeAdmin: string;
  readonly adminGroups: ReadonlySet<string>;
  readonly access: AccessConfig | undefined;
  readonly allowHttpLoopback: boolean;
  readonly keyRecheckMs: number;
}

/** A bad access-control var: the guarded routes answer 500 `misconfigured` in their own shape. */
export class AuthConfigError extends ConfigError {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`${variable}: ${detail}`);
  }
}

/** AUTH is unset: a deployed gateway refuses rather than serving everyone. */
export class AuthNotConfiguredError extends AuthConfigError {
  constructor() {
    super('AUTH', 'not set; choose oauth, access, apikey (comma-separated) or none');
    this.message = 'Server misconfigured: no access control method (AUTH) is set';
  }
}

const METHODS: readonly Method[] = ['oauth', 'access', 'apikey'];
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** A resource URL's canonical form (RFC 8707, MCP authorization): lower-case scheme and host, no trailing slash. */
export function canonicalResource(url: string): string {
  const u = new URL(url);
  u.hash = '';
  return u.href.replace(/\/+$/, '');
}

/** An https URL, or http on loopback when AUTH_ALLOW_HTTP_LOOPBACK allows it. */
export function checkUrl(raw: unknown, variable: string, allowHttpLoopback: boolean): string {
  let u: URL;
  try {
    u = new URL(String(raw));
  } catch {
    throw new AuthConfigError(variable, `${JSON.stringify(raw)} is not a URL`);
  }
  const loopbackHttp = u.protocol === 'http:' && allowHttpLoopback && LOOPBACK.has(u.hostname);
  if (u.protocol !== 'https:' && !loopbackHttp)
    throw new AuthConfigError(
      variable,
      `${u.href} must use https (http only on loopback with AUTH_ALLOW_HTTP_LOOPBACK)`,
    );
  return String(raw);
}

function text(raw: unknown, fallback: string): string {
  return raw === undefined || raw === '' ? fallback : String(raw).trim();
}

const list = (raw: unknown) =>
  String(raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function methodsOf(raw: unknown): { configured: boolean; none: boolean; methods: Set<Method> } {
  const names = list(raw).map((s) => s.toLowerCase());
  if (names.length === 0) return { configured: false, none: false, methods: new Set() };
  if (names.includes('none')) {
    if (names.length > 1) throw new AuthConfigError('AUTH', '"none" cannot be combined with other methods');
    return { configured: true, none: true, methods: new Set() };
  }
  for (const n of names)
    if (!METHODS.includes(n as Method))
      throw new AuthConfigError('AUTH', `unknown method "${n}" (use oauth, access, apikey or none)`);
  return { configured: true, none: false, methods: new Set(names as Method[]) };
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
  return {
    issuer: e.issuer,
    jwksUri: e.jwksUri as string | undefined,
    jwks: jwks as IssuerConfig['jwks'],
    audience: e.audience === undefined ? undefined : canonicalResource(checkUrlish(e.audience as string, at)),
    groupsClaim: (e.groupsClaim as string | undefined) ?? 'groups',
    requireTyp: e.requireTyp as string | undefined,
    scopePrefix: (e.scopePrefix as string | undefined) ?? '',
    introspection,
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

function issuersOf(raw: unknown, loopback: boolean): IssuerConfig[] {
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
  return issuers;
}

function scopeName(raw: unknown, variable: string, fallback: string): string {
  const s = text(raw, fallback);
  if (!/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s))
    throw new AuthConfigError(variable, `${JSON.stringify(s)} is not a scope`);
  return s;
}

type Vars = Record<string, unknown>;

function parse(vars: Vars): AuthConfig {
  const { configured, none, methods } = methodsOf(vars.AUTH);
  const loopback = text(vars.AUTH_ALLOW_HTTP_LOOPBACK, 'false') === 'true';
  const issuers = issuersOf(vars.OAUTH_ISSUERS, loopback);
  if (methods.has('oauth') && issuers.length === 0)
    throw new AuthConfigError('OAUTH_ISSUERS', 'AUTH includes oauth but no issuer is configured');
  let access: AccessConfig | undefined;
  if (methods.has('access')) {
    if (!str(vars.ACCESS_TEAM_DOMAIN)) throw new AuthConfigError('ACCESS_TEAM_DOMAIN', 'AUTH includes access: set it');
    if (!str(vars.ACCESS_AUD)) throw new AuthConfigError('ACCESS_AUD', 'AUTH includes access: set it');
    const team = checkUrl(vars.ACCESS_TEAM_DOMAIN.replace(/\/+$/, ''), 'ACCESS_TEAM_DOMAIN', loopback);
    access = { teamDomain: team, aud: vars.ACCESS_AUD.trim(), groupsClaim: text(vars.ACCESS_GROUPS_CLAIM, 'groups') };
  }
  let resource: string | undefined;
  if (str(vars.AUTH_RESOURCE)) resource = canonicalResource(checkUrl(vars.AUTH_RESOURCE, 'AUTH_RESOURCE', loopback));
  const recheck = Number(text(vars.KEY_RECHECK_MS, '2000'));
  if (!Number.isInteger(recheck) || recheck < 0 || recheck > 300_000)
    throw new AuthConfigError(
      'KEY_RECHECK_MS',
      `must be an integer in [0, 300000], got ${String(vars.KEY_RECHECK_MS)}`,
    );
  return {
    configured,
    none,
    methods,
    resource,
    issuers,
    scopeRead: scopeName(vars.OAUTH_SCOPE_READ, 'OAUTH_SCOPE_READ', 'prompts:read'),
    scopeAdmin: scopeName(vars.OAUTH_SCOPE_ADMIN, 'OAUTH_SCOPE_ADMIN', 'prompts:admin'),
    adminGroups: new Set(list(vars.ADMIN_GROUPS)),
    access,
    allowHttpLoopback: loopback,
    keyRecheckMs: recheck,
  };
}

const cache = new WeakMap<object, AuthConfig | AuthConfigError>();

/** The env's access-control config; throws its AuthConfigError (the same one each time) when a var is bad. */
export function authConfigOf(env: Env): AuthConfig {
  let c = cache.get(env);
  if (c === undefined) {
    try {
      c = parse(env as unknown as Vars);
    } catch (e) {
      if (!(e instanceof AuthConfigError)) throw e;
      c = e;
    }
    cache.set(env, c);
  }
  if (c instanceof AuthConfigError) throw c;
  return c;
}
