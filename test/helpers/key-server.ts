/**
 * A small real authorization-server stand-in on 127.0.0.1 for the e2e
 * suites (Node only): RFC 8414 metadata for an issuer under /idp (OIDC
 * discovery only under /oidc; metadata naming another issuer under /liar), its JWKS
 * (rotatable), RFC 7662 introspection behind client_secret_basic, and a
 * Cloudflare Access certs endpoint. Counts every hit, so a test can tell a
 * cached answer from a fetched one. Not a token issuer: tests sign their own.
 */
import type { JWK } from 'jose';
import { afterAll, beforeAll, vi } from 'vitest';
import { body, listen, stop } from './http-server.js';

export interface KeyServer {
  readonly url: string;
  /** The issuer whose metadata this serves: `${url}/idp`. */
  readonly issuer: string;
  /** Keys served at the issuer's jwks_uri and at /cdn-cgi/access/certs (replace to rotate). */
  issuerKeys: JWK[];
  accessKeys: JWK[];
  /** While true, the issuer's JWKS answers 503 (an issuer that is down). */
  issuerKeysDown: boolean;
  /** While true, introspection answers 503 (an authorization server that is down). */
  introspectionDown: boolean;
  /** Opaque token -> introspection answer (active tokens only; anything else is inactive). */
  readonly active: Map<string, Record<string, unknown>>;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Hits per path. */
  readonly hits: Map<string, number>;
  stop(): Promise<void>;
}

export async function startKeyServer(): Promise<KeyServer> {
  let base = '';
  const state = {
    issuerKeys: [] as JWK[],
    issuerKeysDown: false,
    introspectionDown: false,
    accessKeys: [] as JWK[],
    active: new Map<string, Record<string, unknown>>(),
    hits: new Map<string, number>(),
  };
  const clientId = 'promptgate';
  const clientSecret = 's3cret:with/odd+chars';
  const { http, url } = await listen(async (req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    state.hits.set(path, (state.hits.get(path) ?? 0) + 1);
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (path === '/.well-known/oauth-authorization-server/idp')
      return json(200, {
        issuer: `${base}/idp`,
        jwks_uri: `${base}/idp/jwks`,
        introspection_endpoint: `${base}/idp/introspect`,
        response_types_supported: ['code'],
      });
    // A second issuer with OpenID Connect discovery only (no RFC 8414 document), sharing the keys.
    if (path === '/oidc/.well-known/openid-configuration')
      return json(200, { issuer: `${base}/oidc`, jwks_uri: `${base}/idp/jwks` });
    // A third whose metadata names another issuer: it must not be trusted (RFC 8414 §3.3).
    if (path === '/.well-known/oauth-authorization-server/liar')
      return json(200, { issuer: `${base}/idp`, jwks_uri: `${base}/idp/jwks` });
    if (path === '/idp/jwks')
      return state.issuerKeysDown ? json(503, { error: 'down' }) : json(200, { keys: state.issuerKeys });
    if (path === '/cdn-cgi/access/certs') return json(200, { keys: state.accessKeys });
    if (path === '/idp/introspect' && req.method === 'POST') {
      if (state.introspectionDown) return json(503, { error: 'down' });
      const form = encodeURIComponent;
      const expected = `Basic ${Buffer.from(`${form(clientId)}:${form(clientSecret)}`).toString('base64')}`;
      const text = await body(req);
      if (req.headers.authorization !== expected) return json(401, { error: 'invalid_client' });
      const token = new URLSearchParams(text).get('token') ?? '';
      const claims = state.active.get(token);
      return json(200, claims ? { active: true, ...claims } : { active: false });
    }
    json(404, { error: 'not_found' });
  });
  base = url;
  return Object.assign(state, {
    url,
    issuer: `${url}/idp`,
    clientId,
    clientSecret,
    stop: () => stop(http),
  });
}

/** A key server for one test file: started before its tests (handed to `use`), stopped after them, real timers back first. */
export function keyServerForFile(use: (ks: KeyServer) => void): void {
  let ks: KeyServer | undefined;
  beforeAll(async () => use((ks = await startKeyServer())));
  afterAll(async () => {
    vi.useRealTimers();
    await ks?.stop();
  });
}
