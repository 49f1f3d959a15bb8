/**
 * Access control through the real Worker (routes/auth.ts, src/auth/): OAuth
 * JWTs checked against an inline JWK set, every refusal and its challenge,
 * scopes and their hierarchy, groups and scope claim forms, the ADMIN_TOKEN
 * under AUTH=oauth, AUTH unset, Protected Resource Metadata and /status.
 * Each variant is a new env object (configs are memoised per env object).
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import worker from '../../src/index.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { jwks, newSigner, sign, type Signer } from '../helpers/auth-tokens.js';
import { modernPost } from '../helpers/protocol.js';
import { MCP_URL, publish } from '../helpers/worker.js';

const ORIGIN = 'https://gateway.test';
const ISSUER = 'https://idp.example.com/oauth2/default';
const RESOURCE = `${ORIGIN}/mcp`;
const PRM = `${ORIGIN}/.well-known/oauth-protected-resource/mcp`;
const CHALLENGE_401 = `Bearer resource_metadata="${PRM}", scope="prompts:read"`;

let signer: Signer;
let stranger: Signer;

type Vars = Record<string, string>;
const variant = (vars: Vars) => ({ ...env, ...vars }) as Env;

function oauthEnv(issuer: Record<string, unknown> = {}, vars: Vars = {}): Env {
  return variant({
    AUTH: 'oauth',
    OAUTH_ISSUERS: JSON.stringify([{ issuer: ISSUER, jwks: jwks(signer), ...issuer }]),
    ...vars,
  });
}

async function send(e: Env, url: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(url, init), e, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A modern prompts/list at /mcp. */
function listMcp(e: Env, headers: Record<string, string> = {}): Promise<Response> {
  const { init } = modernPost('prompts/list');
  return send(e, MCP_URL, { ...init, headers: { ...(init.headers as Record<string, string>), ...headers } });
}

const listHttp = (e: Env, headers: Record<string, string> = {}) => send(e, `${ORIGIN}/prompts`, { headers });

const token = (claims: Record<string, unknown> = {}, opts: Parameters<typeof sign>[2] = {}) =>
  sign(signer, { iss: ISSUER, aud: RESOURCE, sub: 'alice', scope: 'prompts:read', ...claims }, opts);

async function expect401(res: Response, description?: string): Promise<void> {
  expect(res.status).toBe(401);
  const want = description
    ? `${CHALLENGE_401}, error="invalid_token", error_description="${description}"`
    : CHALLENGE_401;
  expect(res.headers.get('www-authenticate')).toBe(want);
}

let warned: string[] = [];
beforeAll(async () => {
  signer = await newSigner('k1');
  stranger = await newSigner('k1');
  await publish(FIXTURE_PROMPTS);
});
afterEach(() => {
  vi.restoreAllMocks();
  warned = [];
});
const captureLogs = () => {
  for (const level of ['log', 'warn', 'error'] as const)
    vi.spyOn(console, level).mockImplementation((...a: unknown[]) => void warned.push(a.map(String).join(' ')));
};

describe('AUTH=oauth with JWTs', () => {
  it('a valid token lists prompts at /mcp and GET /prompts', async () => {
    const e = oauthEnv();
    const t = await token();
    const res = await listMcp(e, bearer(t));
    expect(res.status).toBe(200);
    const body = await res.json<{ result: { prompts: unknown[] } }>();
    expect(body.result.prompts.length).toBeGreaterThan(0);
    // Warm: the same token again is served from the isolate's memo, with the same answer.
    expect((await listMcp(e, bearer(t))).status).toBe(200);
    expect((await listHttp(e, bearer(t))).status).toBe(200);
  });

  it('no credentials: 401 with the resource metadata challenge, JSON-RPC on /mcp, {error} elsewhere', async () => {
    const e = oauthEnv();
    const res = await listMcp(e);
    await expect401(res);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Authorization required' },
    });
    const http = await listHttp(e);
    await expect401(http);
    expect(http.headers.get('access-control-allow-origin')).toBe('*');
    expect(http.headers.get('access-control-expose-headers')).toBe('WWW-Authenticate');
    expect(await http.json()).toEqual({ error: { code: 'unauthorized', message: 'Authorization required' } });
  });

  it.each([
    ['expired', () => token({}, { expiresIn: -120 }), 'The token has expired'],
    ['not valid yet', () => token({}, { notBefore: 600 }), 'The token is not valid yet'],
    [
      'for another resource',
      () => token({ aud: 'https://other.example.com/mcp' }),
      'The token was not issued for this resource',
    ],
    [
      'from an unknown issuer',
      () => token({ iss: 'https://evil.example.com' }),
      'The token was not issued by a trusted issuer',
    ],
    [
      'signed by another key with the same kid',
      () => sign(stranger, { iss: ISSUER, aud: RESOURCE, sub: 'a' }),
      'The token signature is invalid',
    ],
    ['signed with an unknown kid', () => token({}, { kid: 'nope' }), 'The token was signed with an unknown key'],
    ['without exp', () => token({ exp: undefined }), "The token's exp claim is invalid"],
    // A JWS header (`{"alg":"ES256"}`) makes it a JWT; its payload is no JSON.
    ['malformed', async () => 'eyJhbGciOiJFUzI1NiJ9.b.c', 'The token is malformed'],
    // No JWS header: an opaque token, which no issuer here introspects.
    ['with two dots but no JWS header', async () => 'a.b.c', 'The token is not active'],
  ])('a token %s: 401 invalid_token with a description', async (_, make, description) => {
    const res = await listMcp(oauthEnv(), bearer(await make()));
    await expect401(res, description);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: description, data: { error: 'invalid_token' } },
    });
  });

  it('an expired token within the minute of clock skew still works', async () => {
    expect(await listMcp(oauthEnv(), bearer(await token({}, { expiresIn: -30 })))).toHaveProperty('status', 200);
  });

  it('a symmetric (HS256) token is refused even if the key set had such a key', async () => {
    const secret = new TextEncoder().encode('0123456789abcdef0123456789abcdef');
    const { SignJWT } = await import('jose');
    const now = Math.floor(Date.now() / 1000);
    const t = await new SignJWT({ iss: ISSUER, aud: RESOURCE, sub: 'a', exp: now + 60 })
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .sign(secret);
    await expect401(await listMcp(oauthEnv(), bearer(t)), 'The token is signed with an algorithm that is not allowed');
  });

  it('requireTyp: at+jwt is required where the issuer says so', async () => {
    const e = oauthEnv({ requireTyp: 'at+jwt' });
    expect((await listMcp(e, bearer(await token()))).status).toBe(200);
    await expect401(await listMcp(e, bearer(await token({}, { typ: 'JWT' }))), 'The token has the wrong type');
    await expect401(await listMcp(e, bearer(await token({}, { typ: null }))), 'The token has the wrong type');
    // Without requireTyp a plain JWT is fine (many IdPs still mint typ JWT).
    expect((await listMcp(oauthEnv(), bearer(await token({}, { typ: 'JWT' })))).status).toBe(200);
  });

  it('the audience: AUTH_RESOURCE, or the issuer entry, replaces the request origin', async () => {
    const configured = oauthEnv({}, { AUTH_RESOURCE: 'HTTPS://Prompts.Example.com/mcp/' });
    const forIt = await token({ aud: ['https://prompts.example.com/mcp', 'other'] });
    expect((await listMcp(configured, bearer(forIt))).status).toBe(200);
    const res = await listMcp(configured, bearer(await token()));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain(
      'resource_metadata="https://prompts.example.com/.well-known/oauth-protected-resource/mcp"',
    );
    const entry = oauthEnv({ audience: 'api://promptgate' });
    expect((await listMcp(entry, bearer(await token({ aud: 'api://promptgate' })))).status).toBe(200);
    expect((await listMcp(entry, bearer(await token()))).status).toBe(401);
  });

  it('a token verified for one origin is not honoured on another (the memo follows the audience)', async () => {
    const e = oauthEnv();
    const t = await token();
    expect((await listMcp(e, bearer(t))).status).toBe(200);
    const other = await send(e, 'https://other.test/prompts', { headers: bearer(t) });
    expect(other.status).toBe(401);
    expect(other.headers.get('www-authenticate')).toContain(
      'error_description="The token was not issued for this resource"',
    );
  });

  it('a browser client (allowed Origin) reads the challenge: CORS, WWW-Authenticate exposed', async () => {
    const res = await listMcp(oauthEnv(), { origin: 'https://app.example.com' });
    await expect401(res);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(res.headers.get('access-control-expose-headers')?.toLowerCase()).toContain('www-authenticate');
    const get = await send(oauthEnv(), MCP_URL, {
      headers: { origin: 'https://app.example.com', accept: 'text/event-stream', 'mcp-session-id': 'x' },
    });
    await expect401(get);
    expect(get.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    // A disallowed origin is refused before its credentials are even looked at.
    expect((await listMcp(oauthEnv(), { origin: 'https://evil.example.com' })).status).toBe(403);
  });

  it('a token without the read scope: 403 insufficient_scope naming it', async () => {
    const t = await token({ scope: 'profile email' });
    const res = await listMcp(oauthEnv(), bearer(t));
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="prompts:read", resource_metadata="${PRM}"`,
    );
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'This needs the prompts:read scope', data: { error: 'insufficient_scope' } },
    });
    const http = await listHttp(oauthEnv(), bearer(t));
    expect(http.status).toBe(403);
    expect(await http.json()).toEqual({ error: { code: 'forbidden', message: 'This needs the prompts:read scope' } });
  });

  it('scope hierarchy: a parent scope and the admin scope both grant read; a sibling does not', async () => {
    const e = oauthEnv();
    for (const scope of ['prompts', 'prompts:admin', 'x prompts:read y'])
      expect((await listMcp(e, bearer(await token({ scope })))).status, scope).toBe(200);
    for (const scope of ['prompts:write', 'prompts:read:one', 'prompt', 'promptsx'])
      expect((await listMcp(e, bearer(await token({ scope })))).status, scope).toBe(403);
  });

  it('scopes from scp, as an array or a string', async () => {
    const e = oauthEnv();
    expect((await listMcp(e, bearer(await token({ scope: undefined, scp: ['prompts:read'] })))).status).toBe(200);
    expect((await listMcp(e, bearer(await token({ scope: undefined, scp: 'a prompts:read' })))).status).toBe(200);
    expect((await listMcp(e, bearer(await token({ scope: undefined, scp: ['a'] })))).status).toBe(403);
  });

  it('scopePrefix (Entra ID): `scp: prompts.read` meets OAUTH_SCOPE_READ=api://app/prompts.read', async () => {
    const read = 'api://promptgate-app/prompts.read';
    const e = oauthEnv({ scopePrefix: 'api://promptgate-app/' }, { OAUTH_SCOPE_READ: read });
    expect((await listMcp(e, bearer(await token({ scope: undefined, scp: 'prompts.read' })))).status).toBe(200);
    const refused = await listMcp(e, bearer(await token({ scope: undefined, scp: 'prompts.write' })));
    expect(refused.status).toBe(403);
    // The challenge names the scope as the client must ask for it.
    expect(refused.headers.get('www-authenticate')).toContain(`scope="${read}"`);
    const plain = oauthEnv({}, { OAUTH_SCOPE_READ: read });
    expect((await listMcp(plain, bearer(await token({ scope: undefined, scp: 'prompts.read' })))).status).toBe(403);
  });

  it('the admin scope or an ADMIN_GROUPS member uses /admin, a reader gets 403; group claim forms', async () => {
    const e = oauthEnv({ groupsClaim: 'roles' }, { ADMIN_GROUPS: 'platform,ops' });
    const admin = (headers: Record<string, string>) => send(e, `${ORIGIN}/admin/prompts`, { headers });
    expect((await admin(bearer(await token({ scope: 'prompts:admin' })))).status).toBe(200);
    expect((await admin(bearer(await token({ roles: ['dev', 'ops'] })))).status).toBe(200);
    expect((await admin(bearer(await token({ roles: 'dev, platform' })))).status).toBe(200);
    expect((await admin(bearer(await token({ roles: 'dev platform' })))).status).toBe(200);
    // Groups under another claim name than the configured one do not count.
    const reader = await admin(bearer(await token({ groups: ['ops'] })));
    expect(reader.status).toBe(403);
    expect(reader.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="prompts:admin", resource_metadata="${PRM}"`,
    );
    expect(await reader.json()).toEqual({
      error: { code: 'forbidden', message: 'This needs the prompts:admin scope' },
    });
    // A group admin also reads (admin implies read).
    expect((await listMcp(e, bearer(await token({ scope: '', roles: ['ops'] })))).status).toBe(200);
  });

  it('nested group claims (Keycloak realm_access.roles)', async () => {
    const e = oauthEnv({ groupsClaim: 'realm_access.roles' }, { ADMIN_GROUPS: 'admins' });
    const res = await send(e, `${ORIGIN}/admin/prompts`, {
      headers: bearer(await token({ realm_access: { roles: ['admins'] } })),
    });
    expect(res.status).toBe(200);
  });

  it('ADMIN_TOKEN still opens /admin under AUTH=oauth and reads /mcp; wrong ones still lock out', async () => {
    const e = oauthEnv();
    expect((await send(e, `${ORIGIN}/admin/prompts`, { headers: bearer('test-admin-token') })).status).toBe(200);
    expect((await listMcp(e, bearer('test-admin-token'))).status).toBe(200);
    const wrong = await send(e, `${ORIGIN}/admin/prompts`, {
      headers: { ...bearer('not-the-token'), 'cf-connecting-ip': '203.0.113.77' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer realm="promptgate-admin"');
    // Failed checks on /admin count towards the lock-out (limit 10 in vitest.config.ts), JWTs included.
    const bad = await token({ aud: 'https://elsewhere.example/mcp' });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++)
      statuses.push(
        (await send(e, `${ORIGIN}/admin/prompts`, { headers: { ...bearer(bad), 'cf-connecting-ip': '203.0.113.78' } }))
          .status,
      );
    expect(statuses).toContain(429);
    // Locked out: even the right token is refused from that client now.
    const locked = await send(e, `${ORIGIN}/admin/prompts`, {
      headers: { ...bearer('test-admin-token'), 'cf-connecting-ip': '203.0.113.78' },
    });
    expect(locked.status).toBe(429);
  });

  it('an ADMIN_TOKEN shaped like a JWT or an API key opens /admin only: elsewhere its shape is never a guess', async () => {
    // Such bearers are not counted as guesses outside /admin (token-guesses.ts), so none may match the token there.
    for (const shaped of ['eyJhbGciOiJub25lIn0.prod.admin', 'pg_adminbreakglass']) {
      const e = oauthEnv({}, { AUTH: 'oauth,apikey', ADMIN_TOKEN: shaped });
      expect((await send(e, `${ORIGIN}/admin/prompts`, { headers: bearer(shaped) })).status, shaped).toBe(200);
      expect((await listMcp(e, bearer(shaped))).status, shaped).toBe(401);
      expect((await listHttp(e, bearer(shaped))).status, shaped).toBe(401);
    }
    // Two dots without a JWS header (`{"alg":"none"}` above) is no JWT: an opaque token, good everywhere.
    const dotted = 'acme.prod.admin';
    const e = oauthEnv({}, { AUTH: 'oauth,apikey', ADMIN_TOKEN: dotted });
    expect((await listHttp(e, bearer(dotted))).status).toBe(200);
  });

  it('an opaque bearer its issuer could not check (introspection down: 503) is still a guess at ADMIN_TOKEN', async () => {
    // Nothing listens at this endpoint (a closed loopback port, refused at once, with no DNS to wait
    // for): every opaque bearer that is not the token ends in 503.
    const e = oauthEnv(
      { introspection: { endpoint: 'http://127.0.0.1:9/introspect', clientId: 'gw', clientSecret: 'IDP_SECRET' } },
      { IDP_SECRET: 'introspection-client-secret', AUTH_ALLOW_HTTP_LOOPBACK: 'true' },
    );
    for (const [route, ip] of [
      ['/prompts', '203.0.113.91'],
      ['/admin/prompts', '203.0.113.92'],
    ] as const) {
      const statuses: number[] = [];
      for (let i = 0; i < 21 && !statuses.includes(429); i++) {
        const res = await send(e, `${ORIGIN}${route}`, {
          headers: { ...bearer(`guess-${i}`), 'cf-connecting-ip': ip },
        });
        statuses.push(res.status);
        await res.body?.cancel();
      }
      expect(statuses[0], route).toBe(503);
      expect(statuses, route).toContain(429);
      expect(
        statuses.filter((s) => s !== 503 && s !== 429),
        route,
      ).toEqual([]);
      // Locked out: the right token learns nothing from that client either.
      const right = await send(e, `${ORIGIN}${route}`, {
        headers: { ...bearer('test-admin-token'), 'cf-connecting-ip': ip },
      });
      expect(right.status, route).toBe(429);
    }
  });

  it('an unknown API key (pg_...) is 401; a non-Bearer scheme is no credential', async () => {
    const e = oauthEnv({}, { AUTH: 'oauth,apikey' });
    await expect401(await listMcp(e, bearer('pg_unknownkey')), 'Unknown, expired or revoked API key');
    await expect401(await listMcp(e, { authorization: 'Basic YTpi' }));
    // Without apikey, a key is refused as one, and never sent on to an issuer's introspection.
    const noKeys = oauthEnv({
      introspection: { endpoint: 'https://idp.example.com/introspect', clientId: 'gw', clientSecret: 'IDP_SECRET' },
    });
    await expect401(await listMcp(noKeys, bearer('pg_somekey')), 'API keys are not accepted here');
  });

  it('credentials in the query string: 400, whatever AUTH says', async () => {
    const t = await token();
    const res = await send(oauthEnv(), `${MCP_URL}?access_token=${t}`, modernPost('prompts/list').init);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: 'Send credentials in the Authorization header, never in the URL',
        data: { error: 'invalid_request' },
      },
    });
    const http = await send(env, `${ORIGIN}/prompts?access_token=x`);
    expect(http.status).toBe(400);
    expect((await http.json<{ error: { code: string } }>()).error.code).toBe('invalid_request');
    // /status is open to anyone, but not to a credential in its URL either.
    for (const e of [env, oauthEnv()]) {
      const status = await send(e, `${ORIGIN}/status?access_token=x`);
      expect(status.status).toBe(400);
      expect((await status.json<{ error: { code: string } }>()).error.code).toBe('invalid_request');
    }
  });

  it('credentials in the query string are refused under a percent-encoded name too', async () => {
    for (const query of ['access%5Ftoken=x', 'access%5ftoken=x', '%61ccess_token=x', 'a=1&access_t%6Fken=x'])
      for (const e of [env, oauthEnv()]) {
        const http = await send(e, `${ORIGIN}/prompts?${query}`);
        expect(http.status, query).toBe(400);
        expect((await http.json<{ error: { code: string } }>()).error.code).toBe('invalid_request');
      }
    const mcp = await send(oauthEnv(), `${MCP_URL}?access%5Ftoken=x`, modernPost('prompts/list').init);
    expect(mcp.status).toBe(400);
    // Other encoded names are just a query.
    expect((await send(env, `${ORIGIN}/status?note=%41`)).status).toBe(200);
  });

  it('never logs a token', async () => {
    captureLogs();
    const t = await token({ aud: 'https://elsewhere.example/mcp' });
    await listMcp(oauthEnv(), bearer(t));
    await listMcp(oauthEnv(), bearer(await token({ scope: 'none' })));
    expect(warned.length).toBeGreaterThan(0);
    expect(warned.some((l) => l.includes('"principal":"oauth:https://idp.example.com/oauth2/default#alice"'))).toBe(
      true,
    );
    for (const l of warned) expect(l).not.toContain(t.split('.')[2]!);
  });
});

describe('Cloudflare Access (config)', () => {
  it('AUTH=access without the team domain or AUD fails loudly, named', async () => {
    captureLogs();
    const res = await listHttp(variant({ AUTH: 'access', ACCESS_AUD: 'x' }));
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: { code: 'misconfigured', message: 'Server misconfigured; see logs' } });
    expect(warned.some((l) => l.includes('"variable":"ACCESS_TEAM_DOMAIN"'))).toBe(true);
  });

  it('no assertion: 401 without resource_metadata (no PRM without OAuth; assertions: e2e/auth-remote)', async () => {
    const e = variant({ AUTH: 'access', ACCESS_TEAM_DOMAIN: 'https://team.cloudflareaccess.com', ACCESS_AUD: 'aud' });
    const res = await listMcp(e);
    await expect401Plain(res);
  });
});

/** A 401 without OAuth: no resource_metadata (there is no PRM to point at). */
async function expect401Plain(res: Response): Promise<void> {
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('Bearer scope="prompts:read"');
}

describe('AUTH unset', () => {
  const unset = () => variant({ AUTH: '' });

  it('/mcp answers 500 misconfigured in JSON-RPC, /prompts and /admin in {error}; the fix is logged once', async () => {
    captureLogs();
    const res = await listMcp(unset(), bearer('test-admin-token'));
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32603, message: 'Server misconfigured: no access control method (AUTH) is set' },
    });
    for (const path of ['/prompts', '/admin/prompts']) {
      const http = await send(unset(), `${ORIGIN}${path}`, { headers: bearer('test-admin-token') });
      expect(http.status, path).toBe(500);
      expect(await http.json()).toEqual({
        error: { code: 'misconfigured', message: 'Server misconfigured: no access control method (AUTH) is set' },
      });
    }
    const fixes = warned.filter((l) => l.includes('"msg":"AUTH is not set'));
    expect(fixes).toHaveLength(1);
    expect(fixes[0]).toContain('set AUTH in wrangler.toml [vars]');
  });

  it('GET / and /status still answer; /status says access control is not configured', async () => {
    const e = unset();
    expect((await send(e, `${ORIGIN}/`)).status).toBe(200);
    const status = await send(e, `${ORIGIN}/status`);
    expect(status.status).toBe(200);
    expect((await status.json<{ auth: unknown }>()).auth).toEqual({ methods: [], configured: false });
  });

  it('/status reports the methods, none, and a bad var by name only', async () => {
    const auth = async (e: Env) => (await (await send(e, `${ORIGIN}/status`)).json<{ auth: unknown }>()).auth;
    expect(await auth(env)).toEqual({ methods: ['none'], configured: true, none: true });
    expect(await auth(oauthEnv({}, { AUTH: 'oauth, apikey' }))).toEqual({
      methods: ['oauth', 'apikey'],
      configured: true,
    });
    expect(await auth(variant({ AUTH: 'oauth', OAUTH_ISSUERS: '[{"issuer":"http://idp.example.com"}]' }))).toEqual({
      methods: [],
      configured: false,
      error: 'invalid OAUTH_ISSUERS[0].issuer',
    });
    expect(await auth(variant({ AUTH: 'none,oauth' }))).toEqual({
      methods: [],
      configured: false,
      error: 'invalid AUTH',
    });
  });
});

describe('Protected Resource Metadata (RFC 9728)', () => {
  it('both path forms describe the /mcp resource, CORS-open; never offline_access', async () => {
    const e = oauthEnv({}, { OAUTH_SCOPE_READ: 'mcp:read', OAUTH_SCOPE_ADMIN: 'mcp:admin' });
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const res = await send(e, `${ORIGIN}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(await res.json()).toEqual({
        resource: RESOURCE,
        authorization_servers: [ISSUER],
        scopes_supported: ['mcp:read', 'mcp:admin'],
        bearer_methods_supported: ['header'],
        resource_name: 'promptgate',
      });
      const pre = await send(e, `${ORIGIN}${path}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
      });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-methods')).toBe('GET, OPTIONS');
    }
  });

  it('404 without OAuth', async () => {
    expect((await send(env, `${ORIGIN}/.well-known/oauth-protected-resource/mcp`)).status).toBe(404);
  });
});

describe('AUTH=none', () => {
  it('any credential is ignored (anonymous), except the ADMIN_TOKEN on /admin', async () => {
    expect((await listMcp(env, bearer('garbage'))).status).toBe(200);
    expect((await listHttp(env, bearer(await token()))).status).toBe(200);
    expect((await send(env, `${ORIGIN}/admin/prompts`, { headers: bearer('test-admin-token') })).status).toBe(200);
    const wrong = await send(env, `${ORIGIN}/admin/prompts`, {
      headers: { ...bearer('nope'), 'cf-connecting-ip': '203.0.113.90' },
    });
    expect(wrong.status).toBe(401);
  });
});
