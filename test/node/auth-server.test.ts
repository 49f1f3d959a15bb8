/**
 * The test authorization server (test/helpers/auth-server.ts) proven with the
 * official SDK: its client, given only an MCP server URL, completes the whole
 * flow (401 -> protected resource metadata -> AS metadata -> registration or a
 * Client ID Metadata Document -> authorize -> token -> listPrompts) against an
 * SDK-protected server, for JWT and opaque tokens; and every endpoint's rules
 * and the tokens tests mint for refusal cases, checked with jose.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startAccessStandIn, startAuthServer, type AuthServer } from '../helpers/auth-server.js';
import { BrowserlessProvider, REDIRECT } from '../helpers/auth/browserless-provider.js';
import { protectedMcpServer } from '../helpers/auth/protected-mcp.js';

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(cleanup.map((f) => f()));
});

/** The SDK's own sequence: connect (401, auth, redirect), finishAuth with the code, connect again. */
async function connectUnaided(url: string, provider: BrowserlessProvider): Promise<Client> {
  const first = new Client({ name: 'auth-test', version: '1' });
  await expect(
    first.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider })),
  ).rejects.toThrow(UnauthorizedError);
  expect(provider.code).toBeTruthy();
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  await transport.finishAuth(provider.code!);
  const client = new Client({ name: 'auth-test', version: '1' });
  await client.connect(transport);
  cleanup.push(() => client.close());
  return client;
}

async function setup(tokens: 'jwt' | 'opaque', extra: Parameters<typeof startAuthServer>[0] = {}) {
  const as = await startAuthServer({
    tokens,
    user: { sub: 'ada', name: 'Ada', email: 'ada@example.com', groups: ['eng', 'ops'] },
    groupsClaim: 'teams',
    clients: [{ client_id: 'rs', client_secret: 'rs-secret' }],
    ...extra,
  });
  cleanup.push(() => as.stop());
  const mcp = await protectedMcpServer(as, {
    verify: tokens === 'jwt' ? 'jwt' : 'introspect',
    introspector: { clientId: 'rs', clientSecret: 'rs-secret' },
  });
  cleanup.push(() => mcp.close());
  return { as, mcp };
}

const paths = (as: AuthServer) => as.requests.map((r) => `${r.method} ${r.path}`);

describe('the official SDK client completes the flow unaided', () => {
  for (const tokens of ['jwt', 'opaque'] as const)
    it(`with dynamic client registration, ${tokens} tokens`, async () => {
      const { as, mcp } = await setup(tokens);
      const provider = new BrowserlessProvider();
      const client = await connectUnaided(mcp.url, provider);
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toEqual(['greet', 'summarise']);

      // Its first request carried no token and was refused; then discovery, registration, authorize, token.
      expect(mcp.seen[0]!.authorization).toBeUndefined();
      expect(mcp.refused()).toBeGreaterThanOrEqual(1);
      expect(paths(as)).toEqual(
        expect.arrayContaining([
          'GET /.well-known/oauth-authorization-server',
          'POST /register',
          'GET /authorize',
          'POST /token',
        ]),
      );
      const order = ['/register', '/authorize', '/token'].map((p) => as.requests.findIndex((r) => r.path === p));
      expect(order).toEqual([...order].sort((a, b) => a - b));
      const authorize = as.requests.find((r) => r.path === '/authorize')!;
      expect(authorize.params).toMatchObject({ resource: mcp.url, code_challenge_method: 'S256', state: 'state-42' });
      expect(provider.redirectedTo!.searchParams.get('iss')).toBe(as.issuer);
      expect(provider.redirectedTo!.searchParams.get('state')).toBe('state-42');

      const token = provider.saved!.access_token;
      if (tokens === 'jwt') {
        expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'RS256', typ: 'at+jwt', kid: as.currentKid() });
        expect(decodeJwt(token)).toMatchObject({
          iss: as.issuer,
          sub: 'ada',
          aud: mcp.url,
          teams: ['eng', 'ops'],
          email: 'ada@example.com',
          scope: 'prompts:read',
        });
      } else {
        expect(token.split('.')).toHaveLength(1);
        // The resource server asked the AS about it, authenticated as itself.
        expect(as.requests.some((r) => r.path === '/introspect' && r.clientId === 'rs')).toBe(true);
        const intro = await fetch(as.introspectionEndpoint, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${Buffer.from('rs:rs-secret').toString('base64')}`,
          },
          body: new URLSearchParams({ token }),
        });
        expect(await intro.json()).toMatchObject({
          active: true,
          iss: as.issuer,
          sub: 'ada',
          aud: mcp.url,
          scope: 'prompts:read',
          client_id: provider.info!.client_id,
          teams: ['eng', 'ops'],
          email: 'ada@example.com',
        });
      }
      // Every later request carried the token.
      expect(mcp.seen.at(-1)!.authorization).toBe(`Bearer ${token}`);
    });

  it('with a Client ID Metadata Document served over https', async () => {
    const cert = readFileSync(new URL('../fixtures/tls/loopback-cert.pem', import.meta.url), 'utf8');
    const key = readFileSync(new URL('../fixtures/tls/loopback-key.pem', import.meta.url), 'utf8');
    let docUrl = '';
    let fetched = 0;
    const docs = createServer({ cert, key }, (_req, res) => {
      fetched += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          client_id: docUrl,
          client_name: 'cimd test',
          redirect_uris: [REDIRECT],
          grant_types: ['authorization_code', 'refresh_token'],
          token_endpoint_auth_method: 'none',
        }),
      );
    });
    await new Promise<void>((r) => docs.listen(0, '127.0.0.1', r));
    cleanup.push(() => new Promise((r) => docs.close(() => r())));
    docUrl = `https://127.0.0.1:${(docs.address() as AddressInfo).port}/client.json`;
    const { as, mcp } = await setup('jwt', { ca: cert });
    const provider = new BrowserlessProvider(docUrl);
    const client = await connectUnaided(mcp.url, provider);
    expect((await client.listPrompts()).prompts).toHaveLength(2);
    expect(paths(as)).not.toContain('POST /register');
    expect(fetched).toBeGreaterThanOrEqual(1);
    expect(decodeJwt(provider.saved!.access_token).client_id).toBe(docUrl);
  });
});

describe('the authorization server itself', () => {
  async function code(as: AuthServer, o: { challenge?: string; resource?: string | null; redirect?: string } = {}) {
    const { createHash } = await import('node:crypto');
    const verifier = 'v'.repeat(50);
    const challenge = o.challenge ?? createHash('sha256').update(verifier).digest('base64url');
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: 'app',
      redirect_uri: o.redirect ?? REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's',
    });
    if (o.resource !== null) q.set('resource', o.resource ?? 'https://mcp.example/mcp');
    const res = await fetch(`${as.issuer}/authorize?${q.toString()}`, { redirect: 'manual' });
    return { res, verifier, location: res.headers.get('location') };
  }
  const token = (as: AuthServer, form: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(as.tokenEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form),
    });
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

  it('serves metadata, in the path-insertion form for an issuer with a path', async () => {
    const as = await startAuthServer({ issuerPath: '/tenant/a' });
    cleanup.push(() => as.stop());
    expect(as.issuer).toMatch(/\/tenant\/a$/);
    for (const p of [
      '/.well-known/oauth-authorization-server/tenant/a',
      '/.well-known/openid-configuration/tenant/a',
      '/tenant/a/.well-known/openid-configuration',
    ]) {
      const m = await (await fetch(`${as.origin}${p}`)).json<Record<string, unknown>>();
      expect(m).toMatchObject({
        issuer: as.issuer,
        code_challenge_methods_supported: ['S256'],
        response_types_supported: ['code'],
        client_id_metadata_document_supported: true,
        token_endpoint: `${as.issuer}/token`,
      });
    }
    expect((await fetch(`${as.origin}/.well-known/oauth-authorization-server`)).status).toBe(404);
  });

  it('checks redirect_uri exactly, requires PKCE S256 and resource, and uses each code once', async () => {
    const as = await startAuthServer({ clients: [{ client_id: 'app', redirect_uris: [REDIRECT] }] });
    cleanup.push(() => as.stop());
    const bad = await code(as, { redirect: `${REDIRECT}/x` });
    expect(bad.res.status).toBe(400);
    expect(bad.location).toBeNull();
    const noResource = new URL((await code(as, { resource: null })).location!);
    expect(noResource.searchParams.get('error')).toBe('invalid_target');
    expect(noResource.searchParams.get('iss')).toBe(as.issuer);

    const ok = await code(as);
    const c = new URL(ok.location!).searchParams.get('code')!;
    const exchange = (verifier: string) =>
      token(as, {
        grant_type: 'authorization_code',
        code: c,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        client_id: 'app',
      });
    expect((await exchange('wrong'.repeat(10))).status).toBe(400); // PKCE failure burns the code too
    const again = await code(as);
    const c2 = new URL(again.location!).searchParams.get('code')!;
    const form = {
      grant_type: 'authorization_code',
      code: c2,
      code_verifier: again.verifier,
      redirect_uri: REDIRECT,
      client_id: 'app',
    };
    const first = await token(as, form);
    expect(first.status).toBe(200);
    const t = await first.json<{ access_token: string; refresh_token: string }>();
    expect(decodeJwt(t.access_token).aud).toBe('https://mcp.example/mcp');
    const replay = await token(as, form);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });

    // refresh_token rotates.
    const r = await token(as, { grant_type: 'refresh_token', refresh_token: t.refresh_token, client_id: 'app' });
    expect(r.status).toBe(200);
    expect((await r.json<{ refresh_token: string }>()).refresh_token).not.toBe(t.refresh_token);
    expect(
      (await token(as, { grant_type: 'refresh_token', refresh_token: t.refresh_token, client_id: 'app' })).status,
    ).toBe(400);
  });

  it('client_credentials with client_secret_basic and client_secret_post; introspection of both token kinds', async () => {
    for (const tokens of ['jwt', 'opaque'] as const) {
      const as = await startAuthServer({
        tokens,
        clients: [{ client_id: 'svc', client_secret: 's3cret', scope: 'up:read' }],
      });
      cleanup.push(() => as.stop());
      const viaBasic = await token(
        as,
        { grant_type: 'client_credentials', resource: 'https://up.example/mcp' },
        { authorization: basic('svc', 's3cret') },
      );
      expect(viaBasic.status).toBe(200);
      const viaPost = await token(as, { grant_type: 'client_credentials', client_id: 'svc', client_secret: 's3cret' });
      expect(viaPost.status).toBe(200);
      const wrong = await token(as, { grant_type: 'client_credentials', client_id: 'svc', client_secret: 'nope' });
      expect(wrong.status).toBe(401);
      const { access_token, expires_in, scope } = await viaBasic.json<Record<string, string | number>>();
      expect([expires_in, scope]).toEqual([3600, 'up:read']);
      const introspect = (t: string, auth = basic('svc', 's3cret')) =>
        fetch(as.introspectionEndpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth },
          body: new URLSearchParams({ token: t }),
        });
      expect((await introspect(String(access_token), basic('svc', 'x'))).status).toBe(401);
      expect(await (await introspect(String(access_token))).json()).toMatchObject({
        active: true,
        sub: 'svc',
        client_id: 'svc',
        scope: 'up:read',
        aud: 'https://up.example/mcp',
        iss: as.issuer,
      });
      as.revokeAll();
      expect(await (await introspect(String(access_token))).json()).toEqual({ active: false });
      expect(as.requests.filter((r) => r.path === '/token').map((r) => r.clientId)).toEqual(['svc', 'svc', undefined]);
    }
  });

  it('mints tokens a verifier must refuse, and rotates keys', async () => {
    const as = await startAuthServer({ alg: 'ES256', user: { sub: 'bob', groups: ['g'] } });
    cleanup.push(() => as.stop());
    // No cooldown: the unknown-kid case above has just refetched the set, and the rotation below must refetch again.
    const jwks = createRemoteJWKSet(new URL(as.jwksUri), { cooldownDuration: 0 });
    const aud = 'https://gw.example/mcp';
    const check = (t: string) => jwtVerify(t, jwks, { issuer: as.issuer, audience: aud, typ: 'at+jwt' });
    const good = await as.mintToken({ aud });
    expect((await check(good)).payload).toMatchObject({ sub: 'bob', groups: ['g'], scope: 'prompts:read' });
    expect(decodeProtectedHeader(good).alg).toBe('ES256');
    await expect(check(await as.mintToken({ aud, expiresIn: -120 }))).rejects.toThrow(/exp/);
    await expect(check(await as.mintToken({ aud: 'https://other.example/mcp' }))).rejects.toThrow(/aud/);
    await expect(check(await as.mintToken({ aud, iss: 'https://evil.example' }))).rejects.toThrow(/iss/);
    await expect(check(await as.mintToken({ aud, signWith: 'unlisted' }))).rejects.toThrow(/signature/);
    await expect(check(await as.mintToken({ aud, kid: 'no-such-kid', signWith: 'unlisted' }))).rejects.toThrow(
      /no applicable key/,
    );
    await expect(check(await as.mintToken({ aud, typ: 'JWT' }))).rejects.toThrow(/typ/);
    expect(decodeJwt(await as.mintToken({ aud, scope: null })).scope).toBeUndefined();

    const oldKid = as.currentKid();
    const newKid = await as.addKey();
    expect(newKid).not.toBe(oldKid);
    const rotated = await as.mintToken({ aud });
    expect(decodeProtectedHeader(rotated).kid).toBe(newKid);
    expect((await check(rotated)).payload.sub).toBe('bob'); // unknown kid: jose refetches the set
    expect((await check(good)).payload.sub).toBe('bob'); // the old key is still listed
    const set = await (await fetch(as.jwksUri)).json<{ keys: { kid: string }[] }>();
    expect(set.keys.map((k) => k.kid)).toEqual([oldKid, newKid]);
  });

  it('the Cloudflare Access stand-in serves certs and mints assertions', async () => {
    const access = await startAccessStandIn({ aud: 'aud-tag-1' });
    cleanup.push(() => access.stop());
    const certs = createRemoteJWKSet(new URL(access.certsUrl));
    const check = (t: string) => jwtVerify(t, certs, { issuer: access.teamDomain, audience: 'aud-tag-1' });
    const t = await access.mint({ email: 'eve@example.com', groups: ['eng'] });
    expect(decodeProtectedHeader(t)).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    expect((await check(t)).payload).toMatchObject({ email: 'eve@example.com', groups: ['eng'], aud: ['aud-tag-1'] });
    await expect(check(await access.mint({ aud: ['another'] }))).rejects.toThrow(/aud/);
    await expect(check(await access.mint({ expiresIn: -60 }))).rejects.toThrow(/exp/);
    await expect(check(await access.mint({ signWith: 'unlisted' }))).rejects.toThrow(/signature/);
    expect(access.requests).toContain('/cdn-cgi/access/certs');
  });
});
