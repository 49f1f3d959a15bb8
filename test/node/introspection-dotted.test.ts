/**
 * Which tokens with two dots are JWTs, through a real introspecting issuer (the key server): one
 * whose first part is no JWS header (PASETO's `v4.local.…`) is opaque and introspected; one whose
 * first part is a JWS header is a JWT, refused when it does not verify and never introspected,
 * even when the introspection endpoint would call it active.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenDigest } from '../../src/auth/memo.js';
import { bearerPrincipal } from '../../src/auth/oauth.js';
import type { OAuthRequest } from '../../src/auth/request.js';
import { introspectingRequest, refusal as refusalOf } from '../helpers/auth/bearer.js';
import { newSigner, sign } from '../helpers/auth-tokens.js';
import { startKeyServer, type KeyServer } from '../helpers/key-server.js';

const RESOURCE = 'https://gateway.test/mcp';
const b64 = (s: string) => Buffer.from(s).toString('base64url');

let ks: KeyServer;
let r: OAuthRequest;
beforeAll(async () => {
  ks = await startKeyServer();
  r = introspectingRequest(ks, RESOURCE);
});
afterAll(() => ks.stop());

const asked = () => ks.hits.get('/idp/introspect') ?? 0;
/** The issuer's introspection calls `token` active, for this resource. */
function activate(token: string, sub: string): void {
  const exp = Math.floor(Date.now() / 1000) + 3600;
  ks.active.set(token, { sub, scope: 'prompts:read', aud: RESOURCE, iss: ks.issuer, exp });
}

const refusal = (token: string) => refusalOf(r, token);

describe('a token with two dots', () => {
  it('whose first part is no JWS header is opaque: introspected, and accepted when active', async () => {
    for (const [token, sub] of [
      ['v4.local.abc', 'paseto'],
      [`${b64('{"typ":"x"}')}.${b64('{}')}.sig`, 'no-alg'],
      [`${b64('[1]')}.${b64('{}')}.sig`, 'not-an-object'],
    ] as const) {
      activate(token, sub);
      const before = asked();
      const p = await bearerPrincipal(r, token, await tokenDigest(token));
      expect(p.id, token).toBe(`oauth:${ks.issuer}#${sub}`);
      expect(asked(), token).toBe(before + 1);
    }
  });

  it('whose first part is a JWS header is a JWT: refused 401 when it does not verify, never introspected', async () => {
    const stranger = await newSigner('k-unknown');
    const forged = await sign(stranger, { iss: ks.issuer, aud: RESOURCE, sub: 'mallory', scope: 'prompts:read' });
    for (const token of [
      `${b64('{"alg":"ES256"}')}.bm90LWpzb24.c2ln`, // its payload is no JSON
      `${b64('{"alg":"none"}')}.${b64(`{"iss":"${ks.issuer}"}`)}.`,
      forged, // signed with a key the issuer does not publish
    ]) {
      activate(token, 'mallory');
      const before = asked();
      const e = await refusal(token);
      expect(e?.status, token).toBe(401);
      expect(e?.oauthError, token).toBe('invalid_token');
      expect(asked(), token).toBe(before);
    }
  });
});
