/**
 * End-to-end, access control as a client meets it: the official SDK clients (1.x legacy, 2.x
 * modern), given only the gateway's URL, run the whole OAuth flow against a real local
 * authorization server (test/helpers/auth-server.ts): 401 → protected resource metadata →
 * authorization server metadata → registration → authorize (PKCE) → token → prompts. JWT
 * tokens on one gateway, opaque tokens (RFC 7662 introspection) on another. Each client then
 * sees only its view: prompts of other groups are absent from the list and answered as unknown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError as UnauthorizedV1 } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
  UnauthorizedError as UnauthorizedV2,
} from '@modelcontextprotocol/client';
import { groupedPromptsDir } from '../helpers/auth-prompts.js';
import { startAuthServer, type AuthServer } from '../helpers/auth-server.js';
import { BrowserlessProvider } from '../helpers/auth/browserless-provider.js';
import { startGateway, type Gateway } from '../helpers/wrangler-dev.js';

const paths = (as: AuthServer) => as.requests.map((r) => `${r.method} ${r.path}`);

function expectWholeFlow(as: AuthServer, gw: Gateway, provider: BrowserlessProvider): void {
  expect(paths(as)).toEqual(
    expect.arrayContaining(['GET /.well-known/oauth-authorization-server', 'POST /register', 'GET /authorize']),
  );
  const order = ['/register', '/authorize', '/token'].map((p) => as.requests.findIndex((r) => r.path === p));
  expect(order.every((i) => i >= 0)).toBe(true);
  expect(order).toEqual([...order].sort((a, b) => a - b));
  // The resource the client asked for is the one the gateway's metadata named (RFC 8707, RFC 9728).
  expect(as.requests.find((r) => r.path === '/authorize')!.params).toMatchObject({
    resource: gw.mcpUrl,
    code_challenge_method: 'S256',
    scope: 'prompts:read',
  });
  expect(provider.saved?.access_token).toBeTruthy();
}

async function gatewayFor(as: AuthServer, extra: Record<string, string> = {}): Promise<Gateway> {
  return startGateway({
    promptsDir: groupedPromptsDir(),
    vars: {
      AUTH: 'oauth',
      OAUTH_ISSUERS: JSON.stringify([
        { issuer: as.issuer, groupsClaim: 'groups', ...JSON.parse(extra.issuer ?? '{}') },
      ]),
      AUTH_ALLOW_HTTP_LOOPBACK: 'true',
      ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'issuer')),
    },
  });
}

describe('SDK 1.x (legacy era), JWT access tokens', () => {
  let as: AuthServer;
  let gw: Gateway;
  beforeAll(async () => {
    as = await startAuthServer({ tokens: 'jwt', user: { sub: 'ada', name: 'Ada', groups: ['eng'] } });
    gw = await gatewayFor(as);
  });
  afterAll(async () => {
    await gw?.stop();
    await as?.stop();
  });

  it('given only the URL, completes the flow unaided and lists its view', async () => {
    const provider = new BrowserlessProvider();
    await expect(
      new ClientV1({ name: 'e2e-v1', version: '1' }).connect(
        new TransportV1(new URL(gw.mcpUrl), { authProvider: provider }),
      ),
    ).rejects.toThrow(UnauthorizedV1);
    const transport = new TransportV1(new URL(gw.mcpUrl), { authProvider: provider });
    expect(provider.code, 'an authorization code came back').toBeTruthy();
    await transport.finishAuth(provider.code!);
    const client = new ClientV1({ name: 'e2e-v1', version: '1' });
    await client.connect(transport);
    try {
      expectWholeFlow(as, gw, provider);
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name).sort()).toEqual(['eng_only', 'everyone']);
      expect((await client.getPrompt({ name: 'eng_only' })).messages[0]!.content).toMatchObject({
        text: 'Say eng_only.',
      });
      // Another team's prompt is answered exactly as a name nobody published.
      const failure = (name: string) =>
        client.getPrompt({ name }).then(
          () => 'answered',
          (e: unknown) => (e instanceof Error ? e.message.replace(name, 'X') : String(e)),
        );
      const hidden = await failure('ops_only');
      expect(hidden).toMatch(/Unknown prompt/);
      expect(hidden).toBe(await failure('ops_onlx'));
    } finally {
      await client.close();
    }
  });

  it('given the URL with a trailing slash, follows the 308 and asks for the one resource, /mcp', async () => {
    const provider = new BrowserlessProvider();
    const url = new URL(`${gw.mcpUrl}/`);
    await expect(
      new ClientV1({ name: 'e2e-v1', version: '1' }).connect(new TransportV1(url, { authProvider: provider })),
    ).rejects.toThrow(UnauthorizedV1);
    const authorize = as.requests.filter((r) => r.path === '/authorize').at(-1)!;
    expect(authorize.params).toMatchObject({ resource: gw.mcpUrl });
    const transport = new TransportV1(url, { authProvider: provider });
    await transport.finishAuth(provider.code!);
    const client = new ClientV1({ name: 'e2e-v1', version: '1' });
    await client.connect(transport);
    try {
      expect((await client.listPrompts()).prompts.map((p) => p.name).sort()).toEqual(['eng_only', 'everyone']);
    } finally {
      await client.close();
    }
  });
});

describe('SDK 2.x (modern era), opaque tokens by introspection', () => {
  let as: AuthServer;
  let gw: Gateway;
  beforeAll(async () => {
    as = await startAuthServer({
      tokens: 'opaque',
      user: { sub: 'olga', name: 'Olga', groups: ['ops'] },
      clients: [{ client_id: 'promptgate', client_secret: 'introspection-secret' }],
    });
    const introspection = { endpoint: as.introspectionEndpoint, clientId: 'promptgate', clientSecret: 'AS_SECRET' };
    gw = await gatewayFor(as, { issuer: JSON.stringify({ introspection }), AS_SECRET: 'introspection-secret' });
  });
  afterAll(async () => {
    await gw?.stop();
    await as?.stop();
  });

  it('given only the URL, completes the flow unaided and lists its view', async () => {
    const provider = new BrowserlessProvider();
    const first = new ClientV2({ name: 'e2e-v2', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await expect(first.connect(new TransportV2(new URL(gw.mcpUrl), { authProvider: provider }))).rejects.toThrow(
      UnauthorizedV2,
    );
    const transport = new TransportV2(new URL(gw.mcpUrl), { authProvider: provider });
    await transport.finishAuth(provider.redirectedTo!.searchParams);
    const client = new ClientV2({ name: 'e2e-v2', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(transport);
    try {
      expectWholeFlow(as, gw, provider);
      expect(provider.saved!.access_token.split('.')).toHaveLength(1);
      expect(client.getProtocolEra()).toBe('modern');
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name).sort()).toEqual(['everyone', 'ops_only']);
      // The gateway asked the authorization server about the token, as itself.
      expect(as.requests.some((r) => r.path === '/introspect' && r.clientId === 'promptgate')).toBe(true);
      await expect(client.getPrompt({ name: 'eng_only' })).rejects.toThrow(/Unknown prompt/);
    } finally {
      await client.close();
    }
  });
});
