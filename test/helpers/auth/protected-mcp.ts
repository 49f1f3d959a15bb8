// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- an ambient module shim, not an import
/// <reference path="./express-shim.d.ts" />
/**
 * A small MCP server protected the way the official SDK protects one:
 * `mcpAuthMetadataRouter` (RFC 9728 metadata naming the test authorization
 * server) and `requireBearerAuth` with the expected resource (RFC 8707),
 * verifying tokens against that server by its JWKS (jose) or by RFC 7662
 * introspection. Stateless Streamable HTTP; it records every request's
 * headers, so tests see exactly which credentials reached it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import express from 'express';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthMetadataRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import {
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { listen, stop } from '../http-server.js';
import type { AuthServer } from '../auth-server.js';

export interface ProtectedOptions {
  /** `jwt`: verify signatures against the JWKS; `introspect`: ask the server (as client `introspector`). */
  verify: 'jwt' | 'introspect';
  introspector?: { clientId: string; clientSecret: string };
  prompts?: string[];
  requiredScopes?: string[];
}

export interface ProtectedMcp {
  url: string;
  /** Headers of every request it received, in order (before authentication). */
  seen: IncomingHttpHeaders[];
  /** How many requests it refused with 401. */
  refused(): number;
  close(): Promise<void>;
}

export async function protectedMcpServer(as: AuthServer, o: ProtectedOptions): Promise<ProtectedMcp> {
  const app = express();
  const seen: IncomingHttpHeaders[] = [];
  let refused = 0;
  const { http, url: origin } = await listen((req, res) => {
    seen.push({ ...req.headers });
    res.once('finish', () => void (res.statusCode === 401 && (refused += 1)));
    app(req, res);
  });
  const url = `${origin}/mcp`;
  const jwks = createRemoteJWKSet(new URL(as.jwksUri));
  const verifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      let claims: Record<string, unknown>;
      if (o.verify === 'jwt') {
        try {
          ({ payload: claims } = await jwtVerify(token, jwks, { issuer: as.issuer, typ: 'at+jwt' }));
        } catch (e) {
          throw new InvalidTokenError(`token refused: ${(e as Error).message}`);
        }
      } else {
        const who = o.introspector!;
        const res = await fetch(as.introspectionEndpoint, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${Buffer.from(`${who.clientId}:${who.clientSecret}`).toString('base64')}`,
          },
          body: new URLSearchParams({ token }),
        });
        claims = (await res.json()) as Record<string, unknown>;
        if (claims.active !== true) throw new InvalidTokenError('token inactive');
      }
      const aud = Array.isArray(claims.aud) ? claims.aud[0] : claims.aud;
      return {
        token,
        clientId: String(claims.client_id ?? ''),
        scopes: String(claims.scope ?? '')
          .split(' ')
          .filter(Boolean),
        expiresAt: Number(claims.exp),
        resource: typeof aud === 'string' ? new URL(aud) : undefined,
      };
    },
  };
  const metadataUrl = getOAuthProtectedResourceMetadataUrl(new URL(url));
  app.use(
    mcpAuthMetadataRouter({
      oauthMetadata: as.metadata as unknown as OAuthMetadata,
      resourceServerUrl: new URL(url),
      scopesSupported: o.requiredScopes ?? ['prompts:read'],
    }),
  );
  const auth = requireBearerAuth({
    verifier,
    requiredScopes: o.requiredScopes ?? ['prompts:read'],
    resourceMetadataUrl: metadataUrl,
    expectedResource: new URL(url),
  });
  const names = o.prompts ?? ['greet', 'summarise'];
  app.all(
    '/mcp',
    auth,
    express.json(),
    async (req: { method: string; body: unknown }, res: { writeHead(s: number): { end(): void } }) => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const server = new Server(
        { name: 'protected', version: '1.0.0' },
        { capabilities: { prompts: {}, completions: {} } },
      );
      server.setRequestHandler(ListPromptsRequestSchema, () => ({
        prompts: names.map((name) => ({ name, arguments: [{ name: 'who', required: false }] })),
      }));
      server.setRequestHandler(GetPromptRequestSchema, (r) => {
        if (!names.includes(r.params.name)) throw new McpError(-32602, `Unknown prompt ${r.params.name}`);
        const text = `${r.params.name} ${r.params.arguments?.who ?? 'everyone'}`;
        return { messages: [{ role: 'user', content: { type: 'text', text } }] };
      });
      server.setRequestHandler(CompleteRequestSchema, (r) => {
        const values = ['world', 'wombat'].filter((v) => v.startsWith(r.params.argument.value));
        return { completion: { values, total: values.length, hasMore: false } };
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      await transport.handleRequest(req as never, res as never, req.body);
    },
  );
  return { url, seen, refused: () => refused, close: () => stop(http) };
}
