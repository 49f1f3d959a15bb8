/**
 * What every access-control var's check shares (config.ts, issuers.ts, keys.ts): the error that
 * names the bad var, and the URL rules (https, http only on loopback when
 * AUTH_ALLOW_HTTP_LOOPBACK allows it; resources in their RFC 8707 canonical form). A URL the
 * gateway fetches (issuers, JWKS, introspection, Access certs, a discovered jwks_uri) must also
 * pass the upstream SSRF guard's address test (catalog/upstreams/ssrf.ts): no private, loopback,
 * link-local or other internal address in any spelling, loopback only with the same var.
 */
import { isLoopbackHost, isPrivateHost } from '../catalog/upstreams/ssrf.js';
import { ConfigError } from '../lib/config-vars.js';

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

/** A resource URL's canonical form (RFC 8707, MCP authorization): lower-case scheme and host, no trailing slash. */
export function canonicalResource(url: string): string {
  const u = new URL(url);
  u.hash = '';
  return u.href.replace(/\/+$/, '');
}

/**
 * What is wrong with a URL, or undefined: https, or http on loopback when AUTH_ALLOW_HTTP_LOOPBACK
 * allows it; one the gateway `fetches` names no internal address (loopback only with that var).
 */
export function urlProblem(raw: unknown, allowLoopback: boolean, fetches = true): string | undefined {
  let u: URL;
  try {
    u = new URL(String(raw));
  } catch {
    return `${JSON.stringify(raw)} is not a URL`;
  }
  const loopback = allowLoopback && isLoopbackHost(u.hostname);
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && loopback))
    return `${u.href} must use https (http only on loopback with AUTH_ALLOW_HTTP_LOOPBACK)`;
  if (fetches && !loopback && isPrivateHost(u.hostname))
    return `${u.href} names a private, loopback, link-local or other internal address (loopback only with AUTH_ALLOW_HTTP_LOOPBACK)`;
  return undefined;
}

/** The URL as given, or an AuthConfigError naming the var; `fetches` is false only for a URL never fetched (AUTH_RESOURCE). */
export function checkUrl(raw: unknown, variable: string, allowHttpLoopback: boolean, fetches = true): string {
  const problem = urlProblem(raw, allowHttpLoopback, fetches);
  if (problem) throw new AuthConfigError(variable, problem);
  return String(raw);
}
