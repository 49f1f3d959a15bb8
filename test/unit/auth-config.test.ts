/**
 * auth/config.ts and the pure rules of auth/: every bad access-control var
 * fails loudly with its name; defaults and normalisation; scope hierarchy,
 * claim forms and the exact challenge strings.
 */
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { AuthConfigError } from '../../src/auth/config-checks.js';
import { authConfigOf } from '../../src/auth/config.js';
import { challenge, metadataUrl } from '../../src/auth/errors.js';
import { claimList, claimsPrincipal, grants, hasScope, scopesOf } from '../../src/auth/principal.js';
import { oauthPrincipal, type OAuthRequest } from '../../src/auth/request.js';

const cfg = (vars: Record<string, string>) => authConfigOf({ ...env, ...vars });
const ISSUERS = JSON.stringify([{ issuer: 'https://idp.example.com' }]);

function failsOn(vars: Record<string, string>, variable: string): void {
  let err: unknown;
  try {
    cfg(vars);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(AuthConfigError);
  expect((err as AuthConfigError).variable).toBe(variable);
  expect((err as Error).message.startsWith(variable)).toBe(true);
}

const INTRO = { endpoint: 'https://idp.example/introspect', clientId: 'gw', clientSecret: 'IDP_SECRET' };

describe('access-control config', () => {
  it('defaults', () => {
    const c = cfg({ AUTH: 'oauth', OAUTH_ISSUERS: ISSUERS });
    expect(c.configured && !c.none).toBe(true);
    expect([...c.methods]).toEqual(['oauth']);
    expect(c.scopeRead).toBe('prompts:read');
    expect(c.scopeAdmin).toBe('prompts:admin');
    expect(c.keyRecheckMs).toBe(2000);
    expect(c.resource).toBeUndefined();
    expect(c.issuers[0]).toMatchObject({
      groupsClaim: 'groups',
      requireTyp: undefined,
      audience: undefined,
      scopePrefix: '',
    });
  });

  it('AUTH unset is not configured (the routes refuse), and none is explicit', () => {
    expect(cfg({ AUTH: '' }).configured).toBe(false);
    expect(cfg({ AUTH: ' None ' }).none).toBe(true);
  });

  it('normalises AUTH_RESOURCE and issuer audiences (lower-case scheme and host, no trailing slash)', () => {
    const c = cfg({
      AUTH: 'oauth',
      AUTH_RESOURCE: 'HTTPS://Prompts.Example.COM/mcp/',
      OAUTH_ISSUERS: JSON.stringify([{ issuer: 'https://idp.example.com', audience: 'HTTPS://A.example/x/' }]),
    });
    expect(c.resource).toBe('https://prompts.example.com/mcp');
    expect(c.issuers[0]!.audience).toBe('https://a.example/x');
  });

  it.each([
    [{ AUTH: 'oauth,magic' }, 'AUTH'],
    [{ AUTH: 'none,apikey' }, 'AUTH'],
    [{ AUTH: 'oauth' }, 'OAUTH_ISSUERS'],
    [{ AUTH: 'oauth', OAUTH_ISSUERS: '{' }, 'OAUTH_ISSUERS'],
    [{ AUTH: 'oauth', OAUTH_ISSUERS: '{}' }, 'OAUTH_ISSUERS'],
    [{ AUTH: 'oauth', OAUTH_ISSUERS: '[{"issuer":"http://idp.example.com"}]' }, 'OAUTH_ISSUERS[0].issuer'],
    [{ AUTH: 'oauth', OAUTH_ISSUERS: '[{"issuer":"http://127.0.0.1:9"}]' }, 'OAUTH_ISSUERS[0].issuer'],
    [{ AUTH: 'oauth', OAUTH_ISSUERS: `[${ISSUERS.slice(1, -1)},${ISSUERS.slice(1, -1)}]` }, 'OAUTH_ISSUERS'],
    [{ AUTH: 'oauth', OAUTH_ISSUERS: '[{"issuer":"https://i.example","jwks":{}}]' }, 'OAUTH_ISSUERS[0]'],
    [
      {
        AUTH: 'oauth',
        OAUTH_ISSUERS: '[{"issuer":"https://i.example","introspection":{"endpoint":"https://i.example/x"}}]',
      },
      'OAUTH_ISSUERS[0]',
    ],
    // Two issuers that introspect: each must say which opaque tokens are its own.
    [
      {
        AUTH: 'oauth',
        OAUTH_ISSUERS: JSON.stringify([
          { issuer: 'https://a.example', introspection: INTRO, tokenPrefix: 'a_' },
          { issuer: 'https://b.example', introspection: INTRO },
        ]),
      },
      'OAUTH_ISSUERS',
    ],
    [
      {
        AUTH: 'oauth',
        OAUTH_ISSUERS: JSON.stringify([{ issuer: 'https://a.example', tokenPrefix: 'a_' }]),
      },
      'OAUTH_ISSUERS[0]',
    ],
    [{ AUTH: 'access', ACCESS_AUD: 'x' }, 'ACCESS_TEAM_DOMAIN'],
    [{ AUTH: 'access', ACCESS_TEAM_DOMAIN: 'https://t.cloudflareaccess.com' }, 'ACCESS_AUD'],
    [{ AUTH: 'access', ACCESS_TEAM_DOMAIN: 'not a url', ACCESS_AUD: 'x' }, 'ACCESS_TEAM_DOMAIN'],
    [{ AUTH: 'none', AUTH_RESOURCE: 'ftp://x' }, 'AUTH_RESOURCE'],
    [{ AUTH: 'none', OAUTH_SCOPE_READ: 'has space' }, 'OAUTH_SCOPE_READ'],
    [{ AUTH: 'none', OAUTH_SCOPE_ADMIN: 'a"b' }, 'OAUTH_SCOPE_ADMIN'],
    [{ AUTH: 'none', KEY_RECHECK_MS: '-1' }, 'KEY_RECHECK_MS'],
    [{ AUTH: 'none', KEY_RECHECK_MS: '1.5' }, 'KEY_RECHECK_MS'],
  ])('%j fails on %s', (vars, variable) => failsOn(vars, variable));

  it('two introspecting issuers with a tokenPrefix each ("" for any) are accepted', () => {
    const c = cfg({
      AUTH: 'oauth',
      OAUTH_ISSUERS: JSON.stringify([
        { issuer: 'https://a.example', introspection: INTRO, tokenPrefix: 'a_' },
        { issuer: 'https://b.example', introspection: INTRO, tokenPrefix: '' },
      ]),
    });
    expect(c.issuers.map((i) => i.tokenPrefix)).toEqual(['a_', '']);
  });

  it('http on loopback only with AUTH_ALLOW_HTTP_LOOPBACK=true', () => {
    const c = cfg({
      AUTH: 'oauth,access',
      AUTH_ALLOW_HTTP_LOOPBACK: 'true',
      OAUTH_ISSUERS: '[{"issuer":"http://127.0.0.1:9/idp"}]',
      ACCESS_TEAM_DOMAIN: 'http://localhost:8/',
      ACCESS_AUD: 'aud',
    });
    expect(c.access).toEqual({ teamDomain: 'http://localhost:8', aud: 'aud', groupsClaim: 'groups' });
    failsOn(
      { AUTH: 'oauth', AUTH_ALLOW_HTTP_LOOPBACK: 'true', OAUTH_ISSUERS: '[{"issuer":"http://10.0.0.1"}]' },
      'OAUTH_ISSUERS[0].issuer',
    );
  });
});

/** Internal addresses in several spellings (decimal, hex, mapped IPv6, trailing dot, ULA), as URL hosts. */
const INTERNAL = [
  '127.0.0.1',
  '[::1]',
  'localhost',
  '169.254.169.254',
  '10.0.0.5',
  '2130706433', // 127.0.0.1 in decimal
  '0xa9fea9fe', // 169.254.169.254 in hex
  '0x7f.1', // 127.0.0.1, short hex form
  '[::ffff:10.1.2.3]',
  '192.168.0.1.',
  '[fd00::1]',
];

/** One var holding `url` in each place access control fetches from, and the var (or entry field) named when it is refused. */
const FETCHED: [string, (url: string) => Record<string, string>, string][] = [
  ['issuer', (url) => ({ OAUTH_ISSUERS: JSON.stringify([{ issuer: url }]) }), 'OAUTH_ISSUERS[0].issuer'],
  [
    'jwksUri',
    (url) => ({ OAUTH_ISSUERS: JSON.stringify([{ issuer: 'https://idp.example.com', jwksUri: `${url}/keys` }]) }),
    'OAUTH_ISSUERS[0].jwksUri',
  ],
  [
    'introspection endpoint',
    (url) => ({
      OAUTH_ISSUERS: JSON.stringify([
        { issuer: 'https://idp.example.com', introspection: { ...INTRO, endpoint: `${url}/introspect` } },
      ]),
    }),
    'OAUTH_ISSUERS[0].introspection.endpoint',
  ],
  ['ACCESS_TEAM_DOMAIN', (url) => ({ ACCESS_TEAM_DOMAIN: url, ACCESS_AUD: 'aud' }), 'ACCESS_TEAM_DOMAIN'],
];

describe('URLs access control fetches: the SSRF guard', () => {
  // Every other var valid, so the URL under test is the one refused.
  const base = {
    AUTH: 'oauth,access',
    OAUTH_ISSUERS: ISSUERS,
    ACCESS_TEAM_DOMAIN: 'https://t.cloudflareaccess.com',
    ACCESS_AUD: 'aud',
  };
  const cases = FETCHED.flatMap(([kind, vars, variable]) =>
    INTERNAL.map((host) => [kind, host, vars, variable] as const),
  );

  it.each(cases)('%s at https://%s is refused, named', (_kind, host, vars, variable) => {
    expect(() => cfg(base)).not.toThrow();
    failsOn({ ...base, ...vars(`https://${host}`) }, variable);
  });

  it.each(FETCHED)(
    '%s: AUTH_ALLOW_HTTP_LOOPBACK admits loopback only, never link-local or private',
    (_k, vars, variable) => {
      const dev = { ...base, AUTH_ALLOW_HTTP_LOOPBACK: 'true' };
      for (const ok of ['http://127.0.0.1:9', 'https://[::1]:9', 'http://localhost:9', 'http://2130706433:9'])
        expect(() => cfg({ ...dev, ...vars(ok) }), ok).not.toThrow();
      for (const bad of ['169.254.169.254', '0xa9fea9fe', '10.0.0.5', '[fd00::1]', '[::ffff:169.254.169.254]'])
        for (const scheme of ['http', 'https']) failsOn({ ...dev, ...vars(`${scheme}://${bad}`) }, variable);
    },
  );

  it('names the rule and the opt-in in the message', () => {
    expect(() =>
      cfg({
        AUTH: 'oauth',
        OAUTH_ISSUERS: JSON.stringify([
          { issuer: 'https://idp.example.com', introspection: { ...INTRO, endpoint: 'https://169.254.169.254/x' } },
        ]),
      }),
    ).toThrowError(
      'OAUTH_ISSUERS[0].introspection.endpoint: https://169.254.169.254/x names a private, loopback, link-local or other internal address (loopback only with AUTH_ALLOW_HTTP_LOOPBACK)',
    );
  });

  it('AUTH_RESOURCE is never fetched: an internal host is its own business', () => {
    expect(cfg({ AUTH: 'none', AUTH_RESOURCE: 'https://10.0.0.5/mcp' }).resource).toBe('https://10.0.0.5/mcp');
  });
});

describe('scopes, claims, challenges', () => {
  it('a granted scope covers itself and its children, nothing else', () => {
    const g = new Set(['prompts', 'team:a:read']);
    expect(['prompts', 'prompts:read', 'prompts:admin:x', 'team:a:read'].map((s) => grants(g, s))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['promptsx', 'team:a', 'team:a:write', 'team', ':prompts'].map((s) => grants(g, s))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('the admin scope is granted only as itself: a parent scope that covers reading makes nobody an admin', () => {
    const cfg = authConfigOf({ ...env, AUTH: 'oauth', OAUTH_ISSUERS: ISSUERS } as unknown as Env);
    const claims = (scope: string) => ({ sub: 's', scope, groups: [] });
    const who = (scope: string) =>
      claimsPrincipal(cfg, { id: 'x', method: 'oauth', claims: claims(scope), groupsClaim: 'groups' });
    for (const broad of ['prompts', 'prompts:read prompts']) {
      const p = who(broad);
      expect(p.admin, broad).toBe(false);
      expect(hasScope(cfg, p, cfg.scopeAdmin), broad).toBe(false);
      expect(hasScope(cfg, p, cfg.scopeRead), broad).toBe(true);
    }
    const admin = who('prompts:admin');
    expect([admin.admin, hasScope(cfg, admin, cfg.scopeAdmin), hasScope(cfg, admin, cfg.scopeRead)]).toEqual([
      true,
      true,
      true,
    ]);
  });

  it('claim lists: arrays, space or comma separated strings; scope beats scp', () => {
    expect(claimList(['a', 1, '', 'b'])).toEqual(['a', 'b']);
    expect(claimList('a, b c')).toEqual(['a', 'b', 'c']);
    expect(claimList(undefined)).toEqual([]);
    expect([...scopesOf({ scope: 'x y', scp: ['z'] })]).toEqual(['x', 'y']);
    expect([...scopesOf({ scp: 'x y' })]).toEqual(['x', 'y']);
  });

  it('challenge strings (RFC 6750 / RFC 9728)', () => {
    const rm = metadataUrl('https://p.example/mcp');
    expect(rm).toBe('https://p.example/.well-known/oauth-protected-resource/mcp');
    expect(metadataUrl('https://p.example')).toBe('https://p.example/.well-known/oauth-protected-resource');
    expect(challenge({ resourceMetadata: rm, scopes: ['r'] })).toBe(`Bearer resource_metadata="${rm}", scope="r"`);
    expect(challenge({ resourceMetadata: rm, scopes: ['r'], error: 'invalid_token', description: 'x "y"\n' })).toBe(
      `Bearer resource_metadata="${rm}", scope="r", error="invalid_token", error_description="x y "`,
    );
    expect(challenge({ resourceMetadata: undefined, scopes: ['a', 'b'], error: 'insufficient_scope' })).toBe(
      'Bearer error="insufficient_scope", scope="a b"',
    );
  });
});

describe('the principal a token names', () => {
  const c = cfg({ AUTH: 'oauth', OAUTH_ISSUERS: ISSUERS });
  const r: OAuthRequest = { cfg: c, env, resource: 'https://gateway.test/mcp', challengeFor: (d) => d };
  const idOf = (claims: Record<string, unknown>) => oauthPrincipal(r, c.issuers[0]!, claims).id;

  it('is the subject; else the user (introspection may omit sub); else a client acting for itself', () => {
    const iss = 'https://idp.example.com';
    expect(idOf({ sub: 'u1', username: 'alice', client_id: 'app' })).toBe(`oauth:${iss}#u1`);
    // Two users of one client, introspected without `sub`, are two principals, not the client.
    expect(idOf({ username: 'alice', client_id: 'app' })).toBe(`oauth-user:${iss}#alice`);
    expect(idOf({ username: 'bob', client_id: 'app', sub: null })).toBe(`oauth-user:${iss}#bob`);
    expect(idOf({ client_id: 'app' })).toBe(`oauth-client:${iss}#app`);
  });

  it('keeps subjects, user names and client ids apart: a client registered as a user is not that user', () => {
    const ids = [idOf({ sub: 'alice' }), idOf({ username: 'alice' }), idOf({ client_id: 'alice' })];
    expect(new Set(ids).size).toBe(3);
    expect(() => idOf({ sub: 7, client_id: 'app' })).toThrowError(/names no subject/);
    expect(() => idOf({ sub: '', client_id: 'app' })).toThrowError(/names no subject/);
    expect(() => idOf({ scope: 'prompts:read' })).toThrowError(/names no subject/);
  });
});
