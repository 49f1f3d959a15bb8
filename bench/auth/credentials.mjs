/**
 * The credentials the auth bench presents, made here with `jose`: an issuer's key pair (its
 * JWK set goes inline into OAUTH_ISSUERS, so no JWKS fetch is ever timed), a Cloudflare Access
 * key pair served as `/cdn-cgi/access/certs` on loopback (fetched once by the gateway, then
 * cached), and one long-lived token of each kind.
 */
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

export const ISSUER = 'https://issuer.bench.invalid';
export const RESOURCE = 'https://bench.invalid/mcp';
export const ACCESS_AUD = 'bench-access-aud';
const HOUR_S = 3600;

async function keyPair(kid) {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { privateKey, jwks: { keys: [jwk] }, kid };
}

function sign(pair, claims, typ) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: pair.kid, typ })
    .setIssuedAt(now)
    .setExpirationTime(now + 2 * HOUR_S)
    .sign(pair.privateKey);
}

/** Serves the Access certs on 127.0.0.1; resolves { url, close }. */
function serveCerts(h, jwks) {
  const body = JSON.stringify({ keys: jwks.keys, public_certs: [] });
  const server = createServer((req, res) => {
    if (req.url !== '/cdn-cgi/access/certs') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      h.onCleanup('access certs', () => new Promise((r) => server.close(() => r())));
      resolve({ url: `http://127.0.0.1:${server.address().port}` });
    });
  });
}

/** Everything a guarded gateway needs to be configured with, and the tokens to send it. */
export async function makeCredentials(h) {
  const [oauth, access] = await Promise.all([keyPair('bench-oauth'), keyPair('bench-access')]);
  const certs = await serveCerts(h, access.jwks);
  const jwt = await sign(
    oauth,
    { iss: ISSUER, sub: 'bench-user', aud: RESOURCE, scope: 'prompts:read', groups: ['bench'] },
    'at+jwt',
  );
  const accessJwt = await sign(access, {
    iss: certs.url,
    sub: 'bench-access-user',
    aud: [ACCESS_AUD],
    email: 'bench@example.com',
  });
  const vars = {
    AUTH: 'oauth,access,apikey',
    AUTH_RESOURCE: RESOURCE,
    OAUTH_ISSUERS: JSON.stringify([{ issuer: ISSUER, jwks: oauth.jwks }]),
    ACCESS_TEAM_DOMAIN: certs.url,
    ACCESS_AUD,
    AUTH_ALLOW_HTTP_LOOPBACK: 'true',
  };
  return { vars, jwt, accessJwt };
}
