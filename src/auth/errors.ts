/**
 * Access-control refusals (RFC 6750 §3): the status, the OAuth error code
 * and the challenge. routes/app.ts's onError renders them in the route's
 * own shape (JSON-RPC on /mcp, `{error}` elsewhere), in one place.
 */

export type OAuthErrorCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

export class AuthError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 503,
    /** The RFC 6750 error code; undefined when no credentials were sent at all. */
    readonly oauthError: OAuthErrorCode | undefined,
    message: string,
    /** The WWW-Authenticate value, if any. */
    readonly challenge: string | undefined,
  ) {
    super(message);
  }

  /** The plain-HTTP error code (`{error: {code}}`). */
  get code(): string {
    if (this.status === 401) return 'unauthorized';
    if (this.status === 403) return 'forbidden';
    if (this.status === 503) return 'unavailable';
    return 'invalid_request';
  }
}

/** A quoted-string parameter value (RFC 9110 §5.6.4): no quotes or backslashes, no control characters. */
const quoted = (s: string) =>
  `"${[...s].map((ch) => (ch < ' ' || ch === '\x7f' ? ' ' : ch === '"' || ch === '\\' ? '' : ch)).join('')}"`;

/** The Protected Resource Metadata URL of a resource (RFC 9728 §3.1: the well-known name goes before the path). */
export function metadataUrl(resource: string): string {
  const u = new URL(resource);
  const path = u.pathname === '/' ? '' : u.pathname;
  return `${u.origin}/.well-known/oauth-protected-resource${path}`;
}

/** The `Bearer ...` challenge value: what a client needs to start (or step up) its OAuth flow. */
export function challenge(opts: {
  resourceMetadata: string | undefined;
  scopes: readonly string[];
  error?: OAuthErrorCode;
  description?: string;
}): string {
  const params: string[] = [];
  const rm = opts.resourceMetadata ? [`resource_metadata=${quoted(opts.resourceMetadata)}`] : [];
  const scope = `scope=${quoted(opts.scopes.join(' '))}`;
  if (opts.error === 'insufficient_scope') params.push(`error=${quoted(opts.error)}`, scope, ...rm);
  else {
    params.push(...rm, scope);
    if (opts.error) params.push(`error=${quoted(opts.error)}`);
  }
  if (opts.description) params.push(`error_description=${quoted(opts.description)}`);
  return `Bearer ${params.join(', ')}`;
}
