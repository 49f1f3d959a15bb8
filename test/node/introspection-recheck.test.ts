/**
 * An opaque token's principal, as introspection names it, through a real introspection endpoint
 * (the key server): streams opened with it are rechecked at their keepalives, and once the token
 * is revoked, the first recheck at least INTROSPECTION_TTL_MS after the last answer says no.
 */
import { describe, expect, it, vi } from 'vitest';
import { INTROSPECTION_TTL_MS } from '../../src/auth/introspect.js';
import { tokenDigest } from '../../src/auth/memo.js';
import { bearerPrincipal } from '../../src/auth/oauth.js';
import { introspectingRequest, prefixedIssuersRequest } from '../helpers/auth/bearer.js';
import { keyServerForFile, startKeyServer, type KeyServer } from '../helpers/key-server.js';

let ks: KeyServer;
keyServerForFile((k) => (ks = k));

describe('an introspected principal', () => {
  it('ends its streams once its token is revoked, within a recheck of INTROSPECTION_TTL_MS, whatever its exp', async () => {
    const resource = 'https://gateway.test/mcp';
    const r = introspectingRequest(ks, resource);
    const exp = Math.floor(Date.now() / 1000) + 8 * 3600;
    ks.active.set('opaque-live', { sub: 'carol', scope: 'prompts:read', aud: resource, iss: ks.issuer, exp });
    const p = await bearerPrincipal(r, 'opaque-live', await tokenDigest('opaque-live'));
    expect(await p.recheck()).toBe(true);
    const asked = () => ks.hits.get('/idp/introspect') ?? 0;
    const before = asked();
    ks.active.delete('opaque-live'); // revoked at the authorization server
    // Within the TTL the last answer stands, without asking.
    expect(await p.recheck()).toBe(true);
    expect(asked()).toBe(before);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + INTROSPECTION_TTL_MS + 1 });
    expect(await p.recheck()).toBe(false);
    expect(asked()).toBe(before + 1);
  });
});

describe('two introspecting issuers', () => {
  it('offer an opaque token only to the issuer whose tokenPrefix it starts with', async () => {
    const other = await startKeyServer();
    try {
      const resource = 'https://gateway.test/mcp';
      const r = prefixedIssuersRequest(
        [
          [ks, 'a_'],
          [other, 'b_'],
        ],
        resource,
      );
      const exp = Math.floor(Date.now() / 1000) + 3600;
      other.active.set('b_live', { sub: 'dave', scope: 'prompts:read', aud: resource, iss: other.issuer, exp });
      const asked = (k: KeyServer) => k.hits.get('/idp/introspect') ?? 0;
      const [a0, b0] = [asked(ks), asked(other)];
      const p = await bearerPrincipal(r, 'b_live', await tokenDigest('b_live'));
      expect(p.id).toBe(`oauth:${other.issuer}#dave`);
      // The first issuer never saw the second one's user's token.
      expect([asked(ks), asked(other)]).toEqual([a0, b0 + 1]);
      // A token neither mints is sent to neither.
      await expect(bearerPrincipal(r, 'c_unknown', await tokenDigest('c_unknown'))).rejects.toThrow();
      expect([asked(ks), asked(other)]).toEqual([a0, b0 + 1]);
    } finally {
      await other.stop();
    }
  });
});
