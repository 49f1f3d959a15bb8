/**
 * What one configured upstream is, after validation (parse.ts builds it from
 * the UPSTREAMS JSON or the admin-set list), and what its allow and deny
 * lists mean for a prompt name.
 */

export interface UpstreamConfig {
  id: string;
  url: URL;
  /** "" when mounted without a prefix. */
  prefix: string;
  timeoutMs: number;
  enabled: boolean;
  headers: Record<string, string>;
  /**
   * The values its `${NAME}` header references resolved to, wherever they sit in a value
   * (`Cookie: sid=${SID}`): cut from the upstream's error text whole (redact.ts).
   */
  secrets?: string[];
  allow: string[] | null;
  deny: string[];
  /** Original upstream name → name to publish (before prefixing). */
  aliases: Record<string, string>;
  /** OAuth 2.0 client-credentials grant for this upstream's bearer token (oauth.ts). */
  oauth?: UpstreamOAuth;
  /** Who sees this upstream's prompts (every one of them); undefined: everyone. */
  groups?: string[];
  /**
   * Mounted without a prefix: the name heads (the part before the separator) its names may not have, every
   * other upstream's prefix and the LOCAL_PREFIX. Such a name is another's namespace (sanitize.ts).
   */
  reserved?: readonly string[];
}

export interface UpstreamOAuth {
  tokenUrl: URL;
  clientId: string;
  /** The secret's value, resolved from the Worker secret the configuration names; never shown anywhere. */
  clientSecret: string;
  /** How the client authenticates at the token endpoint (default client_secret_basic). */
  authMethod: 'client_secret_basic' | 'client_secret_post';
  scope?: string;
  /** RFC 8707 resource indicator sent with the token request. */
  resource?: string;
}

/** A configuration that cannot be used; its message lists every problem by field path. */
export class UpstreamConfigError extends Error {}

export const DEFAULT_TIMEOUT_MS = 5_000;

/**
 * The longest upstream prompt name served, listed or asked for: a client picks the name it asks for, and a
 * glob like `*_*_internal` costs time quadratic in the name's length.
 */
export const MAX_ORIGINAL_NAME = 256;

/**
 * Anchored, `s` and `u`: an upstream's names are any strings, so a `*` or `?` matches a line break
 * too, and a `?` one character as people count them (an emoji is one, not two UTF-16 halves).
 */
function globMatcher(pattern: string): RegExp {
  return new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    'su',
  );
}

/** Whether the upstream's prompt `name` is within MAX_ORIGINAL_NAME and passes its deny, then allow list (globs). */
export function nameAllowed(u: UpstreamConfig, name: string): boolean {
  if (name.length > MAX_ORIGINAL_NAME) return false;
  if (u.deny.some((p) => globMatcher(p).test(name))) return false;
  return u.allow === null || u.allow.some((p) => globMatcher(p).test(name));
}
