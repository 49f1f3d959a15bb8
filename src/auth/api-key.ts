/**
 * Placeholder for the gateway's own API keys (`pg_...`): the keys helper
 * (branch wt-keys) replaces this file with the real lookup. Until then no
 * key is known, so every key is refused as an invalid token.
 */
import type { Principal, RequestScope } from '../lib/scope.js';

export async function apiKeyPrincipal(_scope: RequestScope, _presented: string): Promise<Principal | undefined> {
  return undefined;
}
