/**
 * Every HTTP request to an upstream goes through `guardedFetch`: redirects
 * are never followed. A 3xx is an upstream failure (`redirect_refused`), so
 * neither the configured headers (credentials, API keys) nor any request
 * reach an address the SSRF guard never saw, such as the cloud metadata
 * address. Checking each hop instead would still have to strip headers on
 * every cross-origin hop; an MCP endpoint has no reason to move per request,
 * and a moved one is fixed in the configuration.
 */
import { UpstreamError } from './errors.js';

export async function guardedFetch(fetchFn: typeof fetch, url: URL, init: RequestInit): Promise<Response> {
  const res = await fetchFn(url, { ...init, redirect: 'manual' });
  // `opaqueredirect` (status 0) is what a browser-style fetch gives for a manual redirect.
  if ((res.status >= 300 && res.status < 400) || (res.type as string) === 'opaqueredirect') {
    await res.body?.cancel().catch(() => undefined);
    const to = res.headers.get('location');
    let where = 'elsewhere';
    try {
      if (to) where = new URL(to, url).origin;
    } catch {
      where = 'an invalid location';
    }
    throw new UpstreamError(
      'http',
      `upstream answered ${res.status}, a redirect to ${where}; redirects are not followed`,
      res.status,
      undefined,
      'redirect_refused',
    );
  }
  return res;
}

/** An HTTP+SSE endpoint event may only name the upstream's own origin (the configured headers go there). */
export function sameOrigin(base: URL, target: URL): boolean {
  return base.origin === target.origin;
}
