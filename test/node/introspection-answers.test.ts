/**
 * Which active introspection answers make a principal, and what an introspection endpoint that is
 * down costs, through real introspecting issuers (key servers): a refresh or DPoP-bound token is no
 * bearer credential; a failed endpoint is not asked again for the cooldown, and a second issuer is
 * still asked meanwhile.
 */
import { describe, expect, it, vi } from 'vitest';
import { COOLDOWN_MS } from '../../src/auth/keys.js';
import { introspectingRequest, prefixedIssuersRequest, refusal } from '../helpers/auth/bearer.js';
import { keyServerForFile, startKeyServer, type KeyServer } from '../helpers/key-server.js';

const RESOURCE = 'https://gateway.test/mcp';
let ks: KeyServer;
keyServerForFile((k) => (ks = k));

const asked = (k: KeyServer) => k.hits.get('/idp/introspect') ?? 0;
function activate(k: KeyServer, token: string, extra: Record<string, unknown>): void {
  const exp = Math.floor(Date.now() / 1000) + 3600;
  k.active.set(token, { sub: token, scope: 'prompts:read', aud: RESOURCE, iss: k.issuer, exp, ...extra });
}

describe('an active introspection answer', () => {
  it('makes a principal only for a bearer access token', async () => {
    const r = introspectingRequest(ks, RESOURCE);
    const cases: [string, Record<string, unknown>, boolean][] = [
      ['plain', {}, true],
      ['bearer', { token_type: 'Bearer' }, true],
      ['bearer-lower', { token_type: 'bearer' }, true],
      ['access', { token_type: 'access_token', token_use: 'access_token' }, true],
      ['urn', { token_type: 'urn:ietf:params:oauth:token-type:access_token' }, true],
      ['refresh', { token_type: 'refresh_token' }, false],
      ['dpop', { token_type: 'DPoP' }, false],
      ['odd', { token_type: 7 }, false],
      ['hydra-refresh', { token_type: 'Bearer', token_use: 'refresh_token' }, false],
    ];
    for (const [token, extra, accepted] of cases) {
      activate(ks, token, extra);
      const e = await refusal(r, token);
      if (accepted) expect(e, token).toBeUndefined();
      else expect([e?.status, e?.oauthError], token).toEqual([401, 'invalid_token']);
    }
  });
});

describe('an introspection endpoint that is down', () => {
  it('is answered 503 without asking it again until the cooldown ends', async () => {
    const down = await startKeyServer();
    try {
      const r = introspectingRequest(down, RESOURCE);
      activate(down, 'later-good', {});
      down.introspectionDown = true;
      const before = asked(down);
      for (const token of ['t1', 't2', 't3']) expect((await refusal(r, token))?.status, token).toBe(503);
      expect(asked(down)).toBe(before + 1);
      down.introspectionDown = false;
      // Still cooling: not asked, even though it would answer now.
      expect((await refusal(r, 'later-good'))?.status).toBe(503);
      expect(asked(down)).toBe(before + 1);
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + COOLDOWN_MS + 1 });
      expect(await refusal(r, 'later-good')).toBeUndefined();
      expect(asked(down)).toBe(before + 2);
    } finally {
      vi.useRealTimers();
      await down.stop();
    }
  });

  it('does not keep a second issuer from being asked, and never turns into "inactive"', async () => {
    const [a, b] = [await startKeyServer(), await startKeyServer()];
    try {
      // The first takes any token (tokenPrefix ""), the second those starting "b_": both are offered "b_…".
      const r = prefixedIssuersRequest(
        [
          [a, ''],
          [b, 'b_'],
        ],
        RESOURCE,
      );
      a.introspectionDown = true;
      activate(b, 'b_user', {});
      expect(await refusal(r, 'b_user')).toBeUndefined();
      expect([asked(a), asked(b)]).toEqual([1, 1]);
      // Known to neither, while the first cannot answer: it may be the first one's token.
      const e = await refusal(r, 'b_nobody');
      expect([e?.status, e?.oauthError]).toEqual([503, undefined]);
      expect([asked(a), asked(b)]).toEqual([1, 2]);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});
