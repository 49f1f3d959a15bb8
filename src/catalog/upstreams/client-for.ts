/**
 * The client an upstream's configuration makes (its object's, upstream-object.ts), and the key that
 * says when a configuration change means a new one: its URL, headers, timeout or OAuth grant.
 */
import { GATEWAY_CLIENT_INFO, UpstreamClient } from './client.js';
import { grantKey, upstreamAuth } from './oauth.js';
import type { UpstreamConfig } from './schema.js';

export const clientKey = (u: UpstreamConfig): string =>
  JSON.stringify([u.url.href, u.headers, u.timeoutMs, u.oauth ? grantKey(u.id, u.oauth) : null]);

export function newClient(u: UpstreamConfig): UpstreamClient {
  const { url, headers, secrets, timeoutMs } = u;
  return new UpstreamClient({
    url,
    headers,
    ...(secrets && { secrets }),
    timeoutMs,
    clientInfo: GATEWAY_CLIENT_INFO,
    auth: upstreamAuth(u),
  });
}
