/**
 * Principals (lib/scope.ts) and the rules on their scopes: the fixed ones
 * (anonymous, the ADMIN_TOKEN holder), the one a verified set of claims
 * makes, and scope satisfaction with its hierarchy (a granted `a` covers a
 * required `a:b`; the admin scope covers the read scope).
 */
import { ANONYMOUS_ID } from '../lib/caller.js';
import type { Principal } from '../lib/scope.js';
import type { AuthConfig } from './config.js';

const EMPTY: ReadonlySet<string> = new Set();

/** A principal with no credential behind it: no groups, no scopes, never an admin. */
const uncredentialed = (id: string, good: boolean): Principal =>
  Object.freeze({
    id,
    method: 'none',
    name: undefined,
    groups: [],
    scopes: EMPTY,
    admin: false,
    expiresAt: undefined,
    recheck: () => good,
  });

/** AUTH=none: everyone, unauthenticated. */
export const ANONYMOUS: Principal = uncredentialed(ANONYMOUS_ID, true);

/**
 * No accepted credential: before access control runs, or after it refused one (on /admin and the
 * web pages). No scopes, never good.
 */
export const NOBODY: Principal = uncredentialed('unauthenticated', false);

/** The ADMIN_TOKEN holder (break-glass). */
export function adminPrincipal(cfg: AuthConfig): Principal {
  return {
    id: 'admin',
    method: 'admin',
    name: 'admin',
    groups: [],
    scopes: new Set([cfg.scopeRead, cfg.scopeAdmin]),
    admin: true,
    expiresAt: undefined,
    recheck: () => true,
  };
}

/** Whether `granted` covers `required`: exactly, or through a parent (`a` covers `a:b`, `a:b` covers `a:b:c`). */
export function grants(granted: ReadonlySet<string>, required: string): boolean {
  if (granted.has(required)) return true;
  for (let i = required.lastIndexOf(':'); i > 0; i = required.lastIndexOf(':', i - 1))
    if (granted.has(required.slice(0, i))) return true;
  return false;
}

/**
 * Whether a principal with these scopes may do what `required` names (admin implies read). The
 * admin scope is never granted through a parent: a broad scope (`prompts`) that covers reading must
 * not also make every holder an administrator.
 */
export function hasScope(cfg: AuthConfig, p: Principal, required: string): boolean {
  if (p.admin) return true;
  if (required === cfg.scopeAdmin) return p.scopes.has(required);
  return grants(p.scopes, required) || (required === cfg.scopeRead && p.scopes.has(cfg.scopeAdmin));
}

/** Values of a claim that may be an array or a space- or comma-separated string. */
export function claimList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string' && v !== '');
  if (typeof value === 'string')
    return value
      .split(/[\s,]+/)
      .map((s) => s.trim())
      .filter(Boolean);
  return [];
}

/** `scope` (space-separated, RFC 8693/9068) or `scp` (array or string, Okta and Entra). */
export function scopesOf(claims: Record<string, unknown>): Set<string> {
  const raw = claims.scope ?? claims.scp;
  if (typeof raw === 'string') return new Set(raw.split(' ').filter(Boolean));
  return new Set(claimList(raw));
}

function nameOf(claims: Record<string, unknown>): string | undefined {
  for (const k of ['name', 'email', 'preferred_username', 'username'])
    if (typeof claims[k] === 'string' && claims[k]) return claims[k];
  return undefined;
}

/** A claim path may be nested with dots (Keycloak's `realm_access.roles`). */
function claimAt(claims: Record<string, unknown>, path: string): unknown {
  if (path in claims) return claims[path];
  let v: unknown = claims;
  for (const part of path.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  return v;
}

/** The principal a verified token (or introspection answer, or Access JWT) names. */
export function claimsPrincipal(
  cfg: AuthConfig,
  opts: {
    id: string;
    method: 'oauth' | 'access';
    claims: Record<string, unknown>;
    groupsClaim: string;
    /** Access grants the read scope to whoever it lets through. */
    scopes?: Set<string>;
  },
): Principal {
  const groups = claimList(claimAt(opts.claims, opts.groupsClaim));
  const scopes = opts.scopes ?? scopesOf(opts.claims);
  const byGroup = groups.some((g) => cfg.adminGroups.has(g));
  if (byGroup) scopes.add(cfg.scopeAdmin);
  const admin = byGroup || scopes.has(cfg.scopeAdmin);
  const exp = opts.claims.exp;
  const expiresAt = typeof exp === 'number' ? exp * 1000 : undefined;
  return {
    id: opts.id,
    method: opts.method,
    name: nameOf(opts.claims),
    groups,
    scopes,
    admin,
    expiresAt,
    recheck: () => expiresAt === undefined || expiresAt > Date.now(),
  };
}
