/**
 * The test authorization server's clients: pre-registered ones, dynamic
 * registration (RFC 7591), and Client ID Metadata Documents (a client_id that
 * is an https URL, or http on loopback, is fetched and its document checked),
 * plus client authentication at the token and introspection endpoints
 * (client_secret_basic, client_secret_post, none for public clients).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { request as httpsRequest } from 'node:https';

export interface Client {
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
  grant_types: string[];
  token_endpoint_auth_method: 'none' | 'client_secret_basic' | 'client_secret_post';
  scope?: string;
  client_name?: string;
  /** How it came to be known. */
  via: 'static' | 'dcr' | 'cimd';
}

export class OAuthFault extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(`${error}: ${description}`);
  }
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function isCimdUrl(id: string): boolean {
  try {
    const u = new URL(id);
    return u.pathname !== '/' && (u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK.has(u.hostname)));
  } catch {
    return false;
  }
}

export class ClientStore {
  private readonly clients = new Map<string, Client>();

  /** `ca`: a PEM the CIMD fetches trust beside the system's (a loopback https server's certificate). */
  constructor(private readonly ca?: string) {}

  add(c: Partial<Client> & { client_id?: string }): Client {
    const client: Client = {
      client_id: c.client_id ?? `client-${randomUUID()}`,
      client_secret: c.client_secret,
      redirect_uris: c.redirect_uris ?? [],
      grant_types: c.grant_types ?? ['client_credentials'],
      token_endpoint_auth_method: c.token_endpoint_auth_method ?? (c.client_secret ? 'client_secret_basic' : 'none'),
      scope: c.scope,
      client_name: c.client_name,
      via: c.via ?? 'static',
    };
    this.clients.set(client.client_id, client);
    return client;
  }

  /** RFC 7591: the metadata is checked, then echoed with the id (and a secret unless the client is public). */
  register(meta: Record<string, unknown>): Record<string, unknown> {
    const redirects = meta.redirect_uris;
    const grants = (meta.grant_types as string[] | undefined) ?? ['authorization_code'];
    if (!Array.isArray(grants) || grants.some((g) => typeof g !== 'string'))
      throw new OAuthFault('invalid_client_metadata', 'grant_types must be a list of strings');
    if (grants.includes('authorization_code')) {
      if (!Array.isArray(redirects) || redirects.length === 0 || redirects.some((r) => typeof r !== 'string'))
        throw new OAuthFault('invalid_redirect_uri', 'redirect_uris is required for authorization_code');
      for (const r of redirects as string[])
        try {
          new URL(r);
        } catch {
          throw new OAuthFault('invalid_redirect_uri', `not a URL: ${r}`);
        }
    }
    const method = (meta.token_endpoint_auth_method as string | undefined) ?? 'client_secret_basic';
    if (!['none', 'client_secret_basic', 'client_secret_post'].includes(method))
      throw new OAuthFault('invalid_client_metadata', `unsupported token_endpoint_auth_method ${method}`);
    const client = this.add({
      redirect_uris: (redirects as string[] | undefined) ?? [],
      grant_types: grants,
      token_endpoint_auth_method: method as Client['token_endpoint_auth_method'],
      client_secret: method === 'none' ? undefined : randomBytes(24).toString('base64url'),
      scope: typeof meta.scope === 'string' ? meta.scope : undefined,
      client_name: typeof meta.client_name === 'string' ? meta.client_name : undefined,
      via: 'dcr',
    });
    return {
      ...meta,
      client_id: client.client_id,
      ...(client.client_secret && { client_secret: client.client_secret, client_secret_expires_at: 0 }),
      client_id_issued_at: Math.floor(Date.now() / 1000),
      grant_types: client.grant_types,
      token_endpoint_auth_method: client.token_endpoint_auth_method,
    };
  }

  /** A registered client, or a metadata document fetched now (its client_id must be its own URL). */
  async lookup(clientId: string): Promise<Client | undefined> {
    const known = this.clients.get(clientId);
    if (known) return known;
    if (!isCimdUrl(clientId)) return undefined;
    const doc = await this.fetchDocument(clientId);
    if (doc.client_id !== clientId)
      throw new OAuthFault('invalid_client', 'the metadata document names another client_id');
    const method = (doc.token_endpoint_auth_method as string | undefined) ?? 'none';
    if (method !== 'none') throw new OAuthFault('invalid_client', 'metadata document clients must be public (none)');
    if (!Array.isArray(doc.redirect_uris) || doc.redirect_uris.some((r) => typeof r !== 'string'))
      throw new OAuthFault('invalid_client', 'the metadata document has no redirect_uris');
    return {
      client_id: clientId,
      redirect_uris: doc.redirect_uris as string[],
      grant_types: (doc.grant_types as string[] | undefined) ?? ['authorization_code'],
      token_endpoint_auth_method: 'none',
      client_name: typeof doc.client_name === 'string' ? doc.client_name : undefined,
      via: 'cimd',
    };
  }

  private async fetchDocument(url: string): Promise<Record<string, unknown>> {
    let text: string;
    try {
      text = url.startsWith('https:')
        ? await this.getHttps(url)
        : await (await fetch(url, { redirect: 'error' })).text();
      const doc = JSON.parse(text) as unknown;
      if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error('not an object');
      return doc as Record<string, unknown>;
    } catch (e) {
      if (e instanceof OAuthFault) throw e;
      throw new OAuthFault('invalid_client', `client metadata document unreadable: ${(e as Error).message}`);
    }
  }

  private getHttps(url: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = httpsRequest(url, { ca: this.ca, headers: { accept: 'application/json' } }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return reject(new Error(`status ${res.statusCode}`));
        }
        let s = '';
        res.setEncoding('utf8').on('data', (d: string) => (s += d));
        res.on('end', () => resolve(s));
      });
      req.on('error', reject).end();
    });
  }

  /**
   * The client a token or introspection request authenticates as: Basic
   * header or form fields; a public client only names itself (`allowPublic`).
   */
  async authenticate(authorization: string | undefined, form: URLSearchParams, allowPublic: boolean): Promise<Client> {
    let id = form.get('client_id') ?? undefined;
    let secret = form.get('client_secret') ?? undefined;
    let method: Client['token_endpoint_auth_method'] = secret ? 'client_secret_post' : 'none';
    if (authorization?.toLowerCase().startsWith('basic ')) {
      const raw = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
      const at = raw.indexOf(':');
      if (at < 0) throw new OAuthFault('invalid_client', 'malformed Basic credentials', 401);
      id = decodeURIComponent(raw.slice(0, at));
      secret = decodeURIComponent(raw.slice(at + 1));
      method = 'client_secret_basic';
    }
    if (!id) throw new OAuthFault('invalid_client', 'no client authentication', 401);
    const client = await this.lookup(id);
    if (!client) throw new OAuthFault('invalid_client', 'unknown client', 401);
    if (method === 'none') {
      if (!allowPublic || client.token_endpoint_auth_method !== 'none')
        throw new OAuthFault('invalid_client', 'client authentication required', 401);
      return client;
    }
    if (!client.client_secret || client.client_secret !== secret)
      throw new OAuthFault('invalid_client', 'bad client credentials', 401);
    return client;
  }
}
