/**
 * A Cloudflare Access stand-in for the test suites: the team's JWK set at
 * /cdn-cgi/access/certs on its own loopback port, and `Cf-Access-Jwt-Assertion`
 * JWTs shaped like Access's (RS256, kid, iss = the team domain URL, aud = [AUD
 * tag], email, sub, groups, exp), including ones a verifier must refuse.
 */
import { randomUUID } from 'node:crypto';
import { KeyRing, type SignOptions } from './keys.js';
import { listen, stop } from '../http-server.js';

export interface AccessAssertion extends SignOptions {
  email?: string;
  sub?: string;
  groups?: string[];
  aud?: string | string[];
  iss?: string;
  /** Seconds from now; negative mints an expired assertion. */
  expiresIn?: number;
  claims?: Record<string, unknown>;
}

export interface AccessStandIn {
  /** `http://127.0.0.1:<port>`, the stand-in for `https://<team>.cloudflareaccess.com`. */
  teamDomain: string;
  certsUrl: string;
  aud: string;
  /** Paths it was asked for, in order (who fetched the certs, how often). */
  requests: string[];
  mint(o?: AccessAssertion): Promise<string>;
  addKey(): Promise<string>;
  removeKey(kid: string): void;
  stop(): Promise<void>;
}

export async function startAccessStandIn(opts: { aud?: string; groupsClaim?: string } = {}): Promise<AccessStandIn> {
  const keys = await KeyRing.create('RS256');
  const requests: string[] = [];
  const { http, url } = await listen((req, res) => {
    requests.push(req.url ?? '/');
    if (req.url === '/cdn-cgi/access/certs')
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ ...keys.jwks(), public_certs: [] }));
    res.writeHead(404).end();
  });
  const aud = opts.aud ?? randomUUID().replace(/-/g, '') + randomUUID().replace(/-/g, '');
  return {
    teamDomain: url,
    certsUrl: `${url}/cdn-cgi/access/certs`,
    aud,
    requests,
    mint: (o = {}) => {
      const iat = Math.floor(Date.now() / 1000);
      const email = o.email ?? 'alice@example.com';
      return keys.sign(
        {
          iss: o.iss ?? url,
          aud: o.aud ?? [aud],
          sub: o.sub ?? randomUUID(),
          email,
          type: 'app',
          identity_nonce: randomUUID(),
          iat,
          nbf: iat,
          exp: iat + (o.expiresIn ?? 3600),
          [opts.groupsClaim ?? 'groups']: o.groups ?? [],
          ...o.claims,
        },
        { typ: o.typ === undefined ? 'JWT' : o.typ, kid: o.kid, signWith: o.signWith },
      );
    },
    addKey: () => keys.addKey(),
    removeKey: (kid) => keys.removeKey(kid),
    stop: () => stop(http),
  };
}
