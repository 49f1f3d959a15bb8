/**
 * Access control against real HTTP key servers, through `wrangler dev`:
 * the issuer's jwks_uri found by RFC 8414 discovery and cached, a rotated
 * key picked up on its unknown kid (after the cooldown, one refetch), RFC
 * 7662 introspection with client authentication and its cache, and
 * Cloudflare Access assertions checked against the team's certs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSigner, sign, type Signer } from '../helpers/auth-tokens.js';
import { startKeyServer, type KeyServer } from '../helpers/key-server.js';
import { modernPost } from '../helpers/protocol.js';
import { startGateway, type Gateway } from '../helpers/wrangler-dev.js';

const AUD = 'access-app-aud-tag';
let gw: Gateway;
let ks: KeyServer;
let idp: Signer;
let access: Signer;

beforeAll(async () => {
  ks = await startKeyServer();
  idp = await newSigner('idp-1');
  access = await newSigner('access-1', 'RS256');
  ks.issuerKeys = [idp.jwk];
  ks.accessKeys = [access.jwk];
  gw = await startGateway({
    vars: {
      AUTH: 'oauth,access',
      AUTH_ALLOW_HTTP_LOOPBACK: 'true',
      OAUTH_ISSUERS: JSON.stringify([
        {
          issuer: ks.issuer,
          introspection: {
            endpoint: `${ks.issuer}/introspect`,
            clientId: ks.clientId,
            clientSecret: 'IDP_INTROSPECTION_SECRET',
          },
        },
        { issuer: `${ks.url}/oidc` },
        { issuer: `${ks.url}/liar` },
        // Its keys are at a URL that answers 404: an issuer that is down.
        { issuer: `${ks.url}/broken`, jwksUri: `${ks.url}/broken/jwks` },
      ]),
      IDP_INTROSPECTION_SECRET: ks.clientSecret,
      ACCESS_TEAM_DOMAIN: ks.url,
      ACCESS_AUD: AUD,
      ADMIN_GROUPS: 'prompt-admins',
    },
  });
});

afterAll(async () => {
  await gw?.stop();
  await ks?.stop();
});

const hits = (path: string) => ks.hits.get(path) ?? 0;

function list(headers: Record<string, string>): Promise<Response> {
  const { init } = modernPost('prompts/list');
  return fetch(gw.mcpUrl, { ...init, headers: { ...(init.headers as Record<string, string>), ...headers } });
}

const jwt = (claims: Record<string, unknown> = {}, kid?: string, signer = idp) =>
  sign(signer, { iss: ks.issuer, aud: gw.mcpUrl, sub: 'bob', scope: 'prompts:read', ...claims }, kid ? { kid } : {});

describe('OAuth with remote keys', () => {
  it('discovers the jwks_uri once, fetches the keys once, and serves warm tokens from the cache', async () => {
    const first = await list({ authorization: `Bearer ${await jwt()}` });
    expect(first.status).toBe(200);
    expect(hits('/.well-known/oauth-authorization-server/idp')).toBe(1);
    expect(hits('/idp/jwks')).toBe(1);
    for (let i = 0; i < 3; i++)
      expect((await list({ authorization: `Bearer ${await jwt({ sub: `u${i}` })}` })).status).toBe(200);
    expect(hits('/.well-known/oauth-authorization-server/idp')).toBe(1);
    expect(hits('/idp/jwks')).toBe(1);
  });

  it('a rotated key: an unknown kid is refused until the cooldown allows one refetch, then accepted', async () => {
    const next = await newSigner('idp-2');
    ks.issuerKeys = [idp.jwk, next.jwk];
    const before = hits('/idp/jwks');
    const token = await jwt({}, undefined, next);
    // Bounded: the cooldown is 10 s; each try is one request. Wait for the event (a 200), not a duration.
    const statuses: number[] = [];
    for (let i = 0; i < 60 && statuses.at(-1) !== 200; i++) {
      statuses.push((await list({ authorization: `Bearer ${token}` })).status);
      if (statuses.at(-1) !== 200) await new Promise((r) => setTimeout(r, 500));
    }
    expect(statuses.at(-1)).toBe(200);
    expect(new Set(statuses.slice(0, -1))).toEqual(new Set(statuses.length > 1 ? [401] : []));
    expect(hits('/idp/jwks')).toBe(before + 1);
  });

  it('OIDC discovery without an RFC 8414 document; metadata naming another issuer is not trusted', async () => {
    const oidc = await jwt({ iss: `${ks.url}/oidc` });
    expect((await list({ authorization: `Bearer ${oidc}` })).status).toBe(200);
    expect(hits('/.well-known/oauth-authorization-server/oidc')).toBe(1);
    expect(hits('/oidc/.well-known/openid-configuration')).toBe(1);
    const liar = await list({ authorization: `Bearer ${await jwt({ iss: `${ks.url}/liar` })}` });
    expect(liar.status).toBe(503);
    expect(liar.headers.get('retry-after')).toBe('5');
  });

  it('an issuer that is down is not asked again for each token: a failed discovery or key fetch waits out the cooldown', async () => {
    const metadata = () =>
      hits('/.well-known/oauth-authorization-server/liar') + hits('/liar/.well-known/openid-configuration');
    const liarToken = async (sub: string) => `Bearer ${await jwt({ iss: `${ks.url}/liar`, sub })}`;
    expect((await list({ authorization: await liarToken('first') })).status).toBe(503);
    const asked = metadata();
    expect(asked).toBeGreaterThan(0);
    for (let i = 0; i < 3; i++) {
      const liar = await list({ authorization: await liarToken(`l${i}`) });
      expect(liar.status).toBe(503);
    }
    expect(metadata()).toBe(asked);
    for (let i = 0; i < 4; i++) {
      const down = await list({ authorization: `Bearer ${await jwt({ iss: `${ks.url}/broken`, sub: `d${i}` })}` });
      expect(down.status).toBe(503);
    }
    expect(hits('/broken/jwks')).toBe(1);
  });

  it('while a key refetch fails, tokens signed with a key already held are still served', async () => {
    // The gateway holds the issuer's keys.
    expect((await list({ authorization: `Bearer ${await jwt({ sub: 'first' })}` })).status).toBe(200);
    ks.issuerKeysDown = true;
    try {
      const before = hits('/idp/jwks');
      const stranger = await newSigner('idp-unknown');
      const unknownKid = await jwt({ sub: 'u' }, undefined, stranger);
      // Past jose's cooldown since the last good fetch, an unknown kid makes it fetch again: it fails.
      for (let i = 0; i < 30 && hits('/idp/jwks') === before; i++) {
        await list({ authorization: `Bearer ${unknownKid}` });
        if (hits('/idp/jwks') === before) await new Promise((r) => setTimeout(r, 500));
      }
      expect(hits('/idp/jwks')).toBe(before + 1);
      // The failure is the fetch's, not the key set's: a known key still verifies.
      expect((await list({ authorization: `Bearer ${await jwt({ sub: 'known' })}` })).status).toBe(200);
      // And the failed fetch is not repeated for every unknown kid meanwhile.
      for (let i = 0; i < 3; i++) await list({ authorization: `Bearer ${unknownKid}` });
      expect(hits('/idp/jwks')).toBe(before + 1);
    } finally {
      ks.issuerKeysDown = false;
    }
  }, 30_000);

  it('an opaque token is introspected with client authentication, and the answer cached', async () => {
    ks.active.set('opaque-good', { sub: 'carol', scope: 'prompts:read', aud: gw.mcpUrl, iss: ks.issuer });
    const before = hits('/idp/introspect');
    expect((await list({ authorization: 'Bearer opaque-good' })).status).toBe(200);
    expect((await list({ authorization: 'Bearer opaque-good' })).status).toBe(200);
    expect(hits('/idp/introspect')).toBe(before + 1);
  });

  it('an inactive, foreign or audience-less opaque token is 401 invalid_token', async () => {
    ks.active.set('opaque-foreign', { sub: 'dave', scope: 'prompts:read', aud: 'https://elsewhere.example/mcp' });
    // Active, with the right scope, but the answer names no audience: nothing shows it was issued for us.
    ks.active.set('opaque-noaud', { sub: 'dave', scope: 'prompts:read', iss: ks.issuer });
    for (const t of ['opaque-unknown', 'opaque-foreign', 'opaque-noaud']) {
      const res = await list({ authorization: `Bearer ${t}` });
      expect(res.status, t).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
    ks.active.set('opaque-noscope', { sub: 'erin', scope: 'profile', aud: gw.mcpUrl });
    expect((await list({ authorization: 'Bearer opaque-noscope' })).status).toBe(403);
  });
});

describe('Cloudflare Access', () => {
  const assertion = (claims: Record<string, unknown> = {}) =>
    sign(access, { iss: ks.url, aud: [AUD], sub: 'user-1', email: 'frank@example.com', ...claims }, { typ: 'JWT' });

  it('a valid assertion reads; a member of ADMIN_GROUPS administers', async () => {
    expect((await list({ 'cf-access-jwt-assertion': await assertion() })).status).toBe(200);
    const admin = await fetch(`${gw.url}/admin/prompts`, {
      headers: { 'cf-access-jwt-assertion': await assertion({ groups: ['prompt-admins'] }) },
    });
    expect(admin.status).toBe(200);
    const reader = await fetch(`${gw.url}/admin/prompts`, {
      headers: { 'cf-access-jwt-assertion': await assertion() },
    });
    expect(reader.status).toBe(403);
    expect(hits('/cdn-cgi/access/certs')).toBe(1);
  });

  it('another application (aud), another team (iss) or another key is refused', async () => {
    const stranger = await newSigner('access-1', 'RS256');
    for (const [what, a] of [
      ['aud', await assertion({ aud: ['other-app'] })],
      ['iss', await assertion({ iss: 'https://other.cloudflareaccess.com' })],
      ['key', await sign(stranger, { iss: ks.url, aud: [AUD], sub: 'x' })],
    ] as const) {
      const res = await list({ 'cf-access-jwt-assertion': a });
      expect(res.status, what).toBe(401);
      expect(res.headers.get('www-authenticate'), what).toContain('error="invalid_token"');
    }
  });
});
