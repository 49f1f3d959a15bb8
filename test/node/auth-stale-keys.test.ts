/**
 * Keys held while the key server is down, against a loopback JWKS endpoint and a shifted clock:
 * once the held set is older than its max age (10 min) and the endpoint fails, a token a held
 * key matches is still verified, for an issuer's jwks_uri and for Cloudflare Access certs alike;
 * a token with a kid none of them has is an outage (503), and once the endpoint is back an
 * unknown kid is fetched as ever.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { accessPrincipal } from '../../src/auth/access.js';
import { authConfigOf } from '../../src/auth/config.js';
import { AuthError } from '../../src/auth/errors.js';
import { tokenDigest } from '../../src/auth/memo.js';
import { bearerPrincipal } from '../../src/auth/oauth.js';
import { jwks, newSigner, sign, type Signer } from '../helpers/auth-tokens.js';
import { listen, stop } from '../helpers/http-server.js';

const RESOURCE = 'https://gateway.test/mcp';
const AUD = 'access-app-aud';

let k1: Signer;
let k2: Signer;
let server: Awaited<ReturnType<typeof listen>>;
let base = '';
/** What the endpoint answers: the key set, or 500. */
let serving: Signer[] | 'down' = [];

beforeAll(async () => {
  [k1, k2] = [await newSigner('k1'), await newSigner('k2')];
  server = await listen((_req, res) => {
    if (serving === 'down') return void res.writeHead(500).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks(...serving)));
  });
  base = server.url;
});
afterAll(() => stop(server.http));
afterEach(() => vi.restoreAllMocks());

/** Moves Date.now (jose's cache ages, token times) `ms` ahead of the real clock. */
function clockAhead(ms: number): void {
  const real = Date.now.bind(Date);
  vi.spyOn(Date, 'now').mockImplementation(() => real() + ms);
}

/** A verifier of one kind: mints a token with `signer` and says what becomes of it. */
type Verifier = (signer: Signer, sub: string) => Promise<AuthError | undefined>;

async function outcome(check: () => Promise<unknown>): Promise<AuthError | undefined> {
  try {
    await check();
    return undefined;
  } catch (e) {
    if (e instanceof AuthError) return e;
    throw e;
  }
}

/** OAuth, keys at a configured jwksUri (its own path, so each case starts with a new key set). */
function oauth(): Verifier {
  const env = {
    AUTH: 'oauth',
    AUTH_ALLOW_HTTP_LOOPBACK: 'true',
    OAUTH_ISSUERS: JSON.stringify([{ issuer: `${base}/iss`, jwksUri: `${base}/oauth/jwks` }]),
  } as unknown as Env;
  const r = { cfg: authConfigOf(env), env, resource: RESOURCE, challengeFor: (why: string) => why };
  return async (signer, sub) => {
    const token = await sign(signer, { iss: `${base}/iss`, aud: RESOURCE, sub, scope: 'prompts:read' });
    return outcome(async () => bearerPrincipal(r, token, await tokenDigest(token)));
  };
}

/** Cloudflare Access, keys at the team's /cdn-cgi/access/certs. */
function access(): Verifier {
  const env = {
    AUTH: 'access',
    AUTH_ALLOW_HTTP_LOOPBACK: 'true',
    ACCESS_TEAM_DOMAIN: base,
    ACCESS_AUD: AUD,
  } as unknown as Env;
  const cfg = authConfigOf(env);
  return async (signer, sub) => {
    const token = await sign(signer, { iss: base, aud: AUD, sub }, { typ: null });
    return outcome(() => accessPrincipal(cfg, token, (why) => why));
  };
}

describe.each([
  ['an issuer’s jwks_uri', oauth],
  ['Cloudflare Access certs', access],
])('%s, once the held keys are past their max age and the endpoint fails', (_name, verifier) => {
  it('still verifies a token a held key matches; an unknown kid is an outage until the endpoint is back', async () => {
    serving = [k1];
    const verify = verifier();
    expect(await verify(k1, 'ada')).toBeUndefined();

    serving = 'down';
    clockAhead(11 * 60_000);
    expect(await verify(k1, 'bob')).toBeUndefined();
    const unknown = await verify(k2, 'eve');
    expect(unknown?.status).toBe(503);
    expect(unknown?.code).toBe('unavailable');

    // Back, with a new key: the unknown kid is fetched (past the 10 s cooldown) and verifies.
    serving = [k1, k2];
    vi.restoreAllMocks();
    clockAhead(12 * 60_000);
    expect(await verify(k2, 'cy')).toBeUndefined();
  });
});
