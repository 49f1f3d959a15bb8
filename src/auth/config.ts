/**
 * The access-control vars (docs/access-control.md, "Configuration"), parsed
 * once per `env` object like lib/config.ts. AUTH unset is not an error here:
 * /status must still say what is wrong; the guarded routes refuse with
 * AuthNotConfiguredError. Any bad value fails loudly with the var's name.
 */
import { AuthConfigError, canonicalResource, checkUrl } from './config-checks.js';
import { issuersOf, type IssuerConfig } from './issuers.js';

export type Method = 'oauth' | 'access' | 'apikey';

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

const METHODS: readonly Method[] = ['oauth', 'access', 'apikey'];

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
  if (str(vars.AUTH_RESOURCE))
    resource = canonicalResource(checkUrl(vars.AUTH_RESOURCE, 'AUTH_RESOURCE', loopback, false));
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
