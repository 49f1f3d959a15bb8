/**
 * What every access-control var's check shares (config.ts, issuers.ts, keys.ts): the error that
 * names the bad var, and the URL rules (https, http only on loopback when
 * AUTH_ALLOW_HTTP_LOOPBACK allows it; resources in their RFC 8707 canonical form).
 */
import { ConfigError } from '../lib/config-vars.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

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
