/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) at its root and `/mcp`
 * path forms: how an MCP client that got a 401 finds the authorization
 * servers and scopes for this gateway. Public and CORS-open (browser-based
 * clients read it before they hold any token); 404 unless OAuth is on.
 */
import { Hono, type Context } from 'hono';
import { resourceOf } from '../auth/authenticate.js';
import { authConfigOf } from '../auth/config.js';
import type { AppEnv } from '../env.js';
import { ApiError } from './api-error.js';

export const metadata = new Hono<AppEnv>();

const CORS = { 'access-control-allow-origin': '*' };

const preflight = () =>
  new Response(null, {
    status: 204,
    headers: {
      ...CORS,
      'access-control-allow-methods': 'GET, OPTIONS',
      'access-control-allow-headers': 'MCP-Protocol-Version',
      'access-control-max-age': '86400',
    },
  });

function document(c: Context<AppEnv>) {
  const cfg = authConfigOf(c.env);
  if (!cfg.methods.has('oauth'))
    throw new ApiError(404, 'not_found', 'This gateway does not accept OAuth tokens (AUTH does not include oauth)');
  return c.json(
    {
      resource: resourceOf(cfg, c.req.url),
      authorization_servers: cfg.issuers.map((i) => i.issuer),
      // offline_access is the client's business with its authorization server, never a resource's scope.
      scopes_supported: [cfg.scopeRead, cfg.scopeAdmin],
      bearer_methods_supported: ['header'],
      resource_name: 'promptgate',
    },
    200,
    { ...CORS, 'cache-control': 'public, max-age=300' },
  );
}

for (const path of ['/oauth-protected-resource', '/oauth-protected-resource/mcp']) {
  metadata.get(path, document);
  metadata.options(path, preflight);
}
