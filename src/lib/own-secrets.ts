/**
 * The gateway's own secrets: the key it signs with, the break-glass admin token, and the client
 * secrets it introspects tokens with. Upstream configuration may name other Worker secrets to send
 * upstream, never these: whoever may set the upstream list must not be able to send them to a host
 * of their choosing (catalog/upstreams/secret-ref.ts refuses them by name).
 */

/** Always the gateway's own, whatever is configured. */
const FIXED = ['SIGNING_SECRET', 'ADMIN_TOKEN'];

/** The names, read from the env; OAUTH_ISSUERS loosely (a bad value is access control's error to report). */
export function ownSecretNames(env: { readonly OAUTH_ISSUERS?: string }): ReadonlySet<string> {
  const names = new Set(FIXED);
  let issuers: unknown;
  try {
    issuers = JSON.parse(env.OAUTH_ISSUERS || '[]');
  } catch {
    return names;
  }
  if (Array.isArray(issuers))
    for (const issuer of issuers) {
      const name = (issuer as { introspection?: { clientSecret?: unknown } } | null)?.introspection?.clientSecret;
      if (typeof name === 'string') names.add(name);
    }
  return names;
}
