/**
 * What access control fetches, against a real authorization-server stand-in on loopback: a
 * jwks_uri that an issuer's metadata names at an internal address is never fetched (the token
 * is refused 503, as for keys that cannot be reached, and the log says why), and metadata, JWKS
 * and introspection replies past the 64 KiB cap fail closed the same way, whether or not they
 * declare their length.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { authConfigOf } from '../../src/auth/config.js';
import { MAX_AUTH_REPLY_BYTES } from '../../src/auth/reply.js';
import type { OAuthRequest } from '../../src/auth/request.js';
import { refusal } from '../helpers/auth/bearer.js';
import { newSigner, sign, type Signer } from '../helpers/auth-tokens.js';
import { body, listen, stop } from '../helpers/http-server.js';

const RESOURCE = 'https://gateway.test/mcp';
/** jwks_uri values the metadata of issuer /p<i> names: internal addresses in several spellings. */
const PRIVATE = [
  'https://10.0.0.5/keys',
  'https://169.254.169.254/latest/keys',
  'https://0xa9fea9fe/keys', // 169.254.169.254 in hex
  'https://[::ffff:169.254.169.254]/keys',
  'https://[fd00::1]/keys',
  'https://192.168.1.1./keys',
];
/** Well past the cap, so a capped read must stop early. */
const PAD = 'x'.repeat(2 * MAX_AUTH_REPLY_BYTES);

let signer: Signer;
let server: Awaited<ReturnType<typeof listen>>;
let base = '';

function json(res: ServerResponse, value: unknown, chunked = false): void {
  const text = JSON.stringify(value);
  if (!chunked) {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
    return;
  }
  // No Content-Length: only reading the body can tell its size.
  res.writeHead(200, { 'content-type': 'application/json' });
  for (let at = 0; at < text.length; at += 16_384) res.write(text.slice(at, at + 16_384));
  res.end();
}

beforeAll(async () => {
  signer = await newSigner('k1');
  server = await listen(async (req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    const meta = /^\/\.well-known\/oauth-authorization-server\/(\w+)$/.exec(path);
    if (meta) {
      const name = meta[1]!;
      const p = /^p(\d+)$/.exec(name);
      const jwksUri = p ? PRIVATE[Number(p[1])] : `${base}/${name}/jwks`;
      return json(res, { issuer: `${base}/${name}`, jwks_uri: jwksUri, ...(name === 'fatmeta' ? { pad: PAD } : {}) });
    }
    if (path === '/ok/jwks' || path === '/fatmeta/jwks') return json(res, { keys: [signer.jwk] });
    if (path === '/fatkeys/jwks') return json(res, { keys: [signer.jwk], pad: PAD }, true);
    if (path === '/introspect') {
      await body(req);
      return json(res, { active: true, sub: 'erin', scope: 'prompts:read', aud: RESOURCE, pad: PAD });
    }
    res.writeHead(404).end();
  });
  base = server.url;
});
afterAll(() => stop(server.http));
afterEach(() => vi.restoreAllMocks());

function request(issuers: Record<string, unknown>[]): OAuthRequest {
  const env = {
    AUTH: 'oauth',
    AUTH_ALLOW_HTTP_LOOPBACK: 'true',
    OAUTH_ISSUERS: JSON.stringify(issuers),
    S: 'introspection-secret',
  } as unknown as Env;
  return { cfg: authConfigOf(env), env, resource: RESOURCE, challengeFor: (why) => why };
}

const jwtOf = (name: string) =>
  sign(signer, { iss: `${base}/${name}`, aud: RESOURCE, sub: 'erin', scope: 'prompts:read' });

describe('a jwks_uri from an issuer’s metadata', () => {
  it('on loopback (with AUTH_ALLOW_HTTP_LOOPBACK) is fetched and its keys verify the token', async () => {
    const r = request([{ issuer: `${base}/ok` }]);
    expect(await refusal(r, await jwtOf('ok'))).toBeUndefined();
  });

  it.each(PRIVATE.map((u, i) => [u, i]))(
    'at %s is never fetched: the token is refused 503, the log says why',
    async (uri, i) => {
      const warned: string[] = [];
      vi.spyOn(console, 'warn').mockImplementation((line: unknown) => void warned.push(String(line)));
      const fetched = vi.spyOn(globalThis, 'fetch');
      const name = `p${i}`;
      const r = request([{ issuer: `${base}/${name}` }]);
      const e = await refusal(r, await jwtOf(name));
      expect(e?.status).toBe(503);
      const urls = fetched.mock.calls.map(([input]) => String(input instanceof Request ? input.url : input));
      expect(urls.some((u) => new URL(u).host === new URL(String(uri)).host)).toBe(false);
      expect(urls).toEqual([`${base}/.well-known/oauth-authorization-server/${name}`]);
      const line = warned.find((l) => l.includes("the jwks_uri in an issuer's metadata is refused"));
      expect(line).toBeDefined();
      expect(JSON.parse(line!)).toMatchObject({ issuer: `${base}/${name}` });
    },
  );
});

describe('replies past the byte cap fail closed, like a server that cannot be reached', () => {
  it('metadata (with a Content-Length)', async () => {
    const r = request([{ issuer: `${base}/fatmeta` }]);
    expect((await refusal(r, await jwtOf('fatmeta')))?.status).toBe(503);
  });

  it('a JWKS (chunked, no Content-Length), discovered or configured', async () => {
    const discovered = request([{ issuer: `${base}/fatkeys` }]);
    expect((await refusal(discovered, await jwtOf('fatkeys')))?.status).toBe(503);
    const configured = request([{ issuer: `${base}/fatkeys`, jwksUri: `${base}/fatkeys/jwks?configured` }]);
    expect((await refusal(configured, await jwtOf('fatkeys')))?.status).toBe(503);
  });

  it('an introspection answer, even an active one for this resource', async () => {
    const r = request([
      {
        issuer: `${base}/introspecting`,
        introspection: { endpoint: `${base}/introspect`, clientId: 'gw', clientSecret: 'S' },
      },
    ]);
    expect((await refusal(r, 'opaque-token'))?.status).toBe(503);
  });
});
