/**
 * A real OAuth 2.1 authorization server for the test suites (Node, loopback
 * only): RFC 8414 / OIDC discovery, dynamic registration and Client ID
 * Metadata Documents, an auto-approving /authorize (PKCE S256, RFC 8707
 * `resource`, RFC 9207 `iss`), /token (authorization_code, refresh_token,
 * client_credentials), RFC 7662 /introspect and a rotating /jwks. Access
 * tokens are RS256/ES256 `at+jwt` JWTs or opaque strings. In-process, tests
 * mint tokens a verifier must refuse, and read the log of requests it got.
 *
 *   const as = await startAuthServer({ tokens: 'jwt', user: { sub: 'ada', groups: ['eng'] } });
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeProtectedHeader, importJWK, jwtVerify, type JWTPayload } from 'jose';
import { ClientStore, OAuthFault, type Client } from './auth/clients.js';
import { KeyRing, type Alg, type SignOptions } from './auth/keys.js';
import { body, listen, stop } from './http-server.js';

export { startAccessStandIn, type AccessStandIn } from './auth/access.js';

export interface TestUser {
  sub: string;
  name?: string;
  email?: string;
  groups?: string[];
}

export interface AuthServerOptions {
  /** Access token format (default `jwt`). */
  tokens?: 'jwt' | 'opaque';
  alg?: Alg;
  /** The user /authorize approves as (default sub `alice`, groups []). */
  user?: TestUser;
  /** Claim carrying the groups (default `groups`). */
  groupsClaim?: string;
  /** A path on the issuer (`/tenant/a`): metadata is then served in the path-insertion form too. */
  issuerPath?: string;
  /** Access token lifetime in seconds (default 3600); `as.tokenTtl` changes it later. */
  tokenTtl?: number;
  scopes?: string[];
  /** Scope granted when a request names none (default: the first of `scopes`). */
  defaultScope?: string;
  /** Pre-registered clients (resource servers that introspect, client-credentials callers). */
  clients?: (Partial<Client> & { client_id: string })[];
  /** `aud` of minted tokens, and of client-credentials tokens asked without `resource` (default: the issuer). */
  audience?: string;
  /** PEM trusted for https Client ID Metadata Document fetches (a loopback test server's certificate). */
  ca?: string;
}

export interface MintOverrides extends SignOptions {
  sub?: string;
  iss?: string;
  aud?: string | string[];
  scope?: string | null;
  /** Seconds from now; negative mints an expired token. */
  expiresIn?: number;
  nbf?: number;
  clientId?: string;
  groups?: string[];
  /** Extra or replacing claims. */
  claims?: Record<string, unknown>;
}

export interface LoggedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Form or JSON fields of the body, query fields for GETs. */
  params: Record<string, string>;
  /** The client a token/introspection request authenticated as. */
  clientId?: string;
}

interface Grant {
  sub: string;
  name?: string;
  email?: string;
  groups: string[];
  scope: string;
  aud: string;
  clientId: string;
}

interface OpaqueRecord extends Grant {
  exp: number;
  iat: number;
}

export interface AuthServer {
  /** Origin + issuer path, no trailing slash. */
  issuer: string;
  origin: string;
  jwksUri: string;
  tokenEndpoint: string;
  introspectionEndpoint: string;
  metadata: Record<string, unknown>;
  requests: LoggedRequest[];
  /** Access tokens issued by /token, by grant type. */
  issued: { grant: string; clientId: string; token: string; exp: number }[];
  tokenTtl: number;
  user: TestUser;
  mintToken(o?: MintOverrides): Promise<string>;
  addKey(alg?: Alg): Promise<string>;
  removeKey(kid: string): void;
  currentKid(): string;
  registerClient(c: Partial<Client> & { client_id?: string }): Client;
  /** Every token issued so far turns inactive (introspection) and refresh tokens stop working. */
  revokeAll(): void;
  /** Makes /token answer this status with `error` (null restores it). */
  failTokens(f: { status: number; error: string } | null): void;
  stop(): Promise<void>;
}

const b64url = (b: Buffer) => b.toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

export async function startAuthServer(opts: AuthServerOptions = {}): Promise<AuthServer> {
  const keys = await KeyRing.create(opts.alg ?? 'RS256');
  const clients = new ClientStore(opts.ca);
  for (const c of opts.clients ?? []) clients.add(c);
  const scopes = opts.scopes ?? ['prompts:read', 'prompts:admin'];
  const defaultScope = opts.defaultScope ?? scopes[0] ?? '';
  const groupsClaim = opts.groupsClaim ?? 'groups';
  const path = (opts.issuerPath ?? '').replace(/\/+$/, '');
  const codes = new Map<string, Grant & { redirectUri: string; challenge: string; exp: number }>();
  const refresh = new Map<string, Grant>();
  const opaque = new Map<string, OpaqueRecord>();
  const revoked = new Set<string>();
  let tokenFault: { status: number; error: string } | null = null;

  const send = (res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}) =>
    void res
      .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers })
      .end(JSON.stringify(payload));
  const fault = (res: ServerResponse, f: OAuthFault) =>
    send(
      res,
      f.status,
      { error: f.error, error_description: f.description },
      f.status === 401 ? { 'www-authenticate': 'Basic realm="test-as"' } : {},
    );

  const mint = async (g: Grant, ttl: number, o: MintOverrides = {}): Promise<string> => {
    const iat = now();
    const claims: JWTPayload = {
      iss: o.iss ?? as.issuer,
      sub: o.sub ?? g.sub,
      aud: o.aud ?? g.aud,
      iat,
      nbf: o.nbf ?? iat,
      exp: iat + (o.expiresIn ?? ttl),
      jti: randomUUID(),
      client_id: o.clientId ?? g.clientId,
      ...(o.scope !== null && { scope: o.scope ?? g.scope }),
      [groupsClaim]: o.groups ?? g.groups,
      ...(g.name && { name: g.name }),
      ...(g.email && { email: g.email }),
      ...o.claims,
    };
    return keys.sign(claims, o);
  };

  /** An access token (and its expiry) for a grant, in the server's format. */
  const issue = async (g: Grant, grantType: string) => {
    const ttl = as.tokenTtl;
    let token: string;
    if (opts.tokens === 'opaque') {
      token = b64url(randomBytes(32));
      opaque.set(token, { ...g, iat: now(), exp: now() + ttl });
    } else token = await mint(g, ttl);
    as.issued.push({ grant: grantType, clientId: g.clientId, token, exp: now() + ttl });
    return { access_token: token, token_type: 'Bearer', expires_in: ttl, scope: g.scope };
  };

  const grantFor = (client: Client, scope: string, aud: string, user?: TestUser): Grant => ({
    sub: user?.sub ?? client.client_id,
    name: user?.name,
    email: user?.email,
    groups: user?.groups ?? [],
    scope,
    aud,
    clientId: client.client_id,
  });

  async function introspect(token: string): Promise<Record<string, unknown>> {
    const rec = opaque.get(token);
    if (rec) {
      if (revoked.has(token) || rec.exp <= now()) return { active: false };
      return {
        active: true,
        scope: rec.scope,
        sub: rec.sub,
        aud: rec.aud,
        iss: as.issuer,
        exp: rec.exp,
        iat: rec.iat,
        client_id: rec.clientId,
        token_type: 'Bearer',
        [groupsClaim]: rec.groups,
        ...(rec.name && { name: rec.name }),
        ...(rec.email && { email: rec.email }),
      };
    }
    try {
      const { kid } = decodeProtectedHeader(token);
      const jwk = kid ? keys.publicJwk(kid) : undefined;
      if (!jwk || revoked.has(token)) return { active: false };
      const { payload } = await jwtVerify(token, await importJWK(jwk), { issuer: as.issuer });
      return { active: true, token_type: 'Bearer', ...payload };
    } catch {
      return { active: false };
    }
  }

  async function authorize(q: URLSearchParams, res: ServerResponse): Promise<void> {
    const client = await clients.lookup(q.get('client_id') ?? '');
    if (!client) throw new OAuthFault('invalid_client', 'unknown client_id');
    const redirectUri = q.get('redirect_uri') ?? '';
    // Exact match only (OAuth 2.1); a bad redirect is never redirected to.
    if (!client.redirect_uris.includes(redirectUri)) throw new OAuthFault('invalid_request', 'redirect_uri mismatch');
    const back = (p: Record<string, string>) => {
      const u = new URL(redirectUri);
      for (const [k, v] of Object.entries({ ...p, iss: as.issuer })) u.searchParams.set(k, v);
      const state = q.get('state');
      if (state !== null) u.searchParams.set('state', state);
      res.writeHead(302, { location: u.href }).end();
    };
    if (q.get('response_type') !== 'code') return back({ error: 'unsupported_response_type' });
    const challenge = q.get('code_challenge');
    if (!challenge || q.get('code_challenge_method') !== 'S256')
      return back({ error: 'invalid_request', error_description: 'PKCE S256 is required' });
    const resource = q.get('resource');
    if (!resource) return back({ error: 'invalid_target', error_description: 'resource is required (RFC 8707)' });
    const code = b64url(randomBytes(24));
    codes.set(code, {
      ...grantFor(client, q.get('scope') || client.scope || defaultScope, resource, as.user),
      redirectUri,
      challenge,
      exp: now() + 60,
    });
    back({ code });
  }

  async function token(req: IncomingMessage, form: URLSearchParams, entry: LoggedRequest, res: ServerResponse) {
    if (tokenFault) return send(res, tokenFault.status, { error: tokenFault.error });
    const client = await clients.authenticate(req.headers.authorization, form, true);
    entry.clientId = client.client_id;
    const type = form.get('grant_type');
    if (type === 'authorization_code') {
      const code = form.get('code') ?? '';
      const c = codes.get(code);
      codes.delete(code); // single use, whatever happens next
      if (!c || c.exp <= now() || c.clientId !== client.client_id)
        throw new OAuthFault('invalid_grant', 'unknown, used or expired code');
      if (form.get('redirect_uri') !== c.redirectUri) throw new OAuthFault('invalid_grant', 'redirect_uri mismatch');
      const verifier = form.get('code_verifier') ?? '';
      if (b64url(createHash('sha256').update(verifier).digest()) !== c.challenge)
        throw new OAuthFault('invalid_grant', 'PKCE verification failed');
      const resource = form.get('resource');
      if (resource && resource !== c.aud) throw new OAuthFault('invalid_target', 'resource differs from /authorize');
      const rt = b64url(randomBytes(32));
      refresh.set(rt, c);
      return send(res, 200, { ...(await issue(c, type)), refresh_token: rt });
    }
    if (type === 'refresh_token') {
      const rt = form.get('refresh_token') ?? '';
      const g = refresh.get(rt);
      if (!g || g.clientId !== client.client_id) throw new OAuthFault('invalid_grant', 'unknown refresh token');
      refresh.delete(rt); // rotated
      const next = b64url(randomBytes(32));
      refresh.set(next, g);
      return send(res, 200, { ...(await issue(g, type)), refresh_token: next });
    }
    if (type === 'client_credentials') {
      if (client.token_endpoint_auth_method === 'none')
        throw new OAuthFault('unauthorized_client', 'public clients cannot use client_credentials');
      const scope = form.get('scope') || client.scope || defaultScope;
      const wanted = scope.split(' ').filter(Boolean);
      const allowed = (client.scope ?? scopes.join(' ')).split(' ');
      if (wanted.some((s) => !allowed.includes(s))) throw new OAuthFault('invalid_scope', 'scope not allowed');
      const aud = form.get('resource') ?? opts.audience ?? as.issuer;
      return send(res, 200, await issue(grantFor(client, scope, aud), type));
    }
    throw new OAuthFault('unsupported_grant_type', `unsupported grant_type ${type}`);
  }

  const { http, url: origin } = await listen(async (req, res) => {
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    const raw = req.method === 'POST' ? await body(req) : '';
    const isJson = (req.headers['content-type'] ?? '').includes('application/json');
    const form = new URLSearchParams(req.method === 'POST' && !isJson ? raw : u.search);
    const entry: LoggedRequest = {
      method: req.method ?? 'GET',
      path: u.pathname,
      headers: { ...req.headers },
      params: isJson ? (JSON.parse(raw || '{}') as Record<string, string>) : Object.fromEntries(form),
    };
    as.requests.push(entry);
    const p = u.pathname;
    try {
      if (req.method === 'GET' && metadataPaths.has(p)) return send(res, 200, as.metadata);
      if (p === `${path}/jwks`) return send(res, 200, keys.jwks());
      if (p === `${path}/authorize` && req.method === 'GET') return await authorize(u.searchParams, res);
      if (p === `${path}/register` && req.method === 'POST') {
        let meta: unknown;
        try {
          meta = JSON.parse(raw);
        } catch {
          throw new OAuthFault('invalid_client_metadata', 'body is not JSON');
        }
        if (typeof meta !== 'object' || meta === null) throw new OAuthFault('invalid_client_metadata', 'not an object');
        return send(res, 201, clients.register(meta as Record<string, unknown>));
      }
      if (p === `${path}/token` && req.method === 'POST') return await token(req, form, entry, res);
      if (p === `${path}/introspect` && req.method === 'POST') {
        const client = await clients.authenticate(req.headers.authorization, form, false);
        entry.clientId = client.client_id;
        return send(res, 200, await introspect(form.get('token') ?? ''));
      }
      send(res, 404, { error: 'not_found' });
    } catch (e) {
      if (e instanceof OAuthFault) return fault(res, e);
      send(res, 500, { error: 'server_error', error_description: String(e) });
    }
  });

  const issuer = `${origin}${path}`;
  const metadata = {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    registration_endpoint: `${issuer}/register`,
    jwks_uri: `${issuer}/jwks`,
    introspection_endpoint: `${issuer}/introspect`,
    scopes_supported: scopes,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    // OIDC discovery's required fields, so clients that read it accept the document.
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [opts.alg ?? 'RS256'],
  };
  // RFC 8414 path insertion, and the OIDC form (appended) for issuers with a path.
  const metadataPaths = new Set([
    `/.well-known/oauth-authorization-server${path}`,
    `/.well-known/openid-configuration${path}`,
    `${path}/.well-known/openid-configuration`,
  ]);

  const as: AuthServer = {
    issuer,
    origin,
    jwksUri: metadata.jwks_uri,
    tokenEndpoint: metadata.token_endpoint,
    introspectionEndpoint: metadata.introspection_endpoint,
    metadata,
    requests: [],
    issued: [],
    tokenTtl: opts.tokenTtl ?? 3600,
    user: opts.user ?? { sub: 'alice', groups: [] },
    mintToken: (o = {}) =>
      mint(
        {
          sub: as.user.sub,
          name: as.user.name,
          email: as.user.email,
          groups: as.user.groups ?? [],
          scope: defaultScope,
          aud: opts.audience ?? issuer,
          clientId: 'minted',
        },
        as.tokenTtl,
        o,
      ),
    addKey: (alg) => keys.addKey(alg),
    removeKey: (kid) => keys.removeKey(kid),
    currentKid: () => keys.currentKid,
    registerClient: (c) => clients.add(c),
    revokeAll: () => {
      for (const t of as.issued) revoked.add(t.token);
      refresh.clear();
    },
    failTokens: (f) => void (tokenFault = f),
    stop: () => stop(http),
  };
  return as;
}
