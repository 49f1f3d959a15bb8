/**
 * End-to-end, access control against a real `wrangler dev` and a real local authorization
 * server: every refusal a token can earn, API keys from mint to revocation (and the stream that
 * ends with its key), listings and cursors per view, the HTTP cache never mixing views, and a
 * session that belongs to the principal that opened it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupedPromptsDir } from '../helpers/auth-prompts.js';
import { startAuthServer, type AuthServer } from '../helpers/auth-server.js';
import { waitUntil } from '../helpers/live.js';
import { expectError, initialize, modernPost, postInit, request, streamHeaders } from '../helpers/protocol.js';
import { readEvents } from '../helpers/sse.js';
import { startGateway, type Gateway } from '../helpers/wrangler-dev.js';

let as: AuthServer;
let gw: Gateway;

beforeAll(async () => {
  as = await startAuthServer({ tokens: 'jwt' });
  gw = await startGateway({
    promptsDir: groupedPromptsDir(),
    pageSize: 1,
    vars: {
      AUTH: 'oauth,apikey',
      OAUTH_ISSUERS: JSON.stringify([{ issuer: as.issuer, groupsClaim: 'groups' }]),
      AUTH_ALLOW_HTTP_LOOPBACK: 'true',
      // Every key lookup asks the writer: a revocation lands on the next request.
      KEY_RECHECK_MS: '0',
      SSE_KEEPALIVE_MS: '300',
    },
  });
});
afterAll(async () => {
  await gw?.stop();
  await as?.stop();
});

const token = (o: Parameters<AuthServer['mintToken']>[0] = {}) => as.mintToken({ aud: gw.mcpUrl, ...o });
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

/** A modern prompts/list page as `headers` sees it. */
async function listPage(headers: Record<string, string>, cursor?: string) {
  const { init } = modernPost('prompts/list', cursor === undefined ? {} : { cursor });
  return fetch(gw.mcpUrl, { ...init, headers: { ...(init.headers as Record<string, string>), ...headers } });
}

/** Every name in the modern list, following cursors. */
async function allNames(headers: Record<string, string>): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 10; i++) {
    const res = await listPage(headers, cursor);
    expect(res.status).toBe(200);
    const { result } = (await res.json()) as { result: { prompts: { name: string }[]; nextCursor?: string } };
    names.push(...result.prompts.map((p) => p.name));
    cursor = result.nextCursor;
    if (cursor === undefined) return names.sort();
  }
  throw new Error('more than 10 pages');
}

describe('refusals', () => {
  const challenge = (res: Response) => res.headers.get('www-authenticate') ?? '';
  const prm = () => `resource_metadata="${gw.url}/.well-known/oauth-protected-resource/mcp"`;

  it('no credentials: 401 with the metadata and the scope to ask for', async () => {
    const res = await listPage({});
    expect(challenge(res)).toBe(`Bearer ${prm()}, scope="prompts:read"`);
    // RFC 6750 §3.1: a request with no credentials at all gets no error code.
    const error = await expectError(res, 401, -32000);
    expect((error.data as { error?: string } | undefined)?.error).toBeUndefined();
  });

  const bad: [string, () => Promise<string>][] = [
    ['expired', () => token({ expiresIn: -120 })],
    ['minted for another resource', () => token({ aud: 'https://other.example/mcp' })],
    ['from another issuer', () => token({ iss: 'https://evil.example' })],
    ['signed by a key the issuer never published', () => token({ signWith: 'unlisted' })],
    ['naming a kid the issuer does not have', () => token({ kid: 'no-such-kid' })],
  ];
  for (const [what, make] of bad)
    it(`a token ${what}: 401 invalid_token`, async () => {
      const res = await listPage(bearer(await make()));
      expect(challenge(res)).toContain('error="invalid_token"');
      expect(challenge(res)).toContain(prm());
      await expectError(res, 401, -32000);
    });

  it('a token without the read scope: 403 naming every scope the call needs', async () => {
    const res = await listPage(bearer(await token({ scope: 'profile' })));
    expect(challenge(res)).toBe(`Bearer error="insufficient_scope", scope="prompts:read", ${prm()}`);
    await expectError(res, 403, -32000);
  });

  it('a token in the query string is refused, never read', async () => {
    const { init } = modernPost('prompts/list');
    const res = await fetch(`${gw.mcpUrl}?access_token=${await token()}`, init);
    expect(res.status).toBe(400);
  });
});

describe('views', () => {
  it('each principal lists exactly its view, across pages', async () => {
    expect(await allNames(bearer(await token({ groups: ['eng'] })))).toEqual(['eng_only', 'everyone']);
    expect(await allNames(bearer(await token({ groups: ['ops'] })))).toEqual(['everyone', 'ops_only']);
    expect(await allNames(bearer(await token({ groups: [] })))).toEqual(['everyone']);
  });

  it('a cursor from one view is refused in another (-32602), and works in its own', async () => {
    const eng = bearer(await token({ groups: ['eng'] }));
    const first = (await (await listPage(eng)).json()) as { result: { nextCursor: string } };
    const cursor = first.result.nextCursor;
    expect(cursor).toBeTruthy();
    expect((await listPage(eng, cursor)).status).toBe(200);
    const other = await listPage(bearer(await token({ groups: ['ops'] })), cursor);
    const body = (await other.json()) as { error?: { code: number } };
    expect(body.error?.code).toBe(-32602);
  });

  it('GET /prompts is private, differs per view, and never serves one view to another', async () => {
    const get = async (groups: string[]) =>
      fetch(`${gw.url}/prompts`, { headers: bearer(await token({ groups })) }).then(async (r) => ({
        status: r.status,
        etag: r.headers.get('etag'),
        cacheControl: r.headers.get('cache-control') ?? '',
        vary: r.headers.get('vary') ?? '',
        names: ((await r.json()) as { prompts: { name: string }[] }).prompts.map((p) => p.name),
      }));
    const eng = await get(['eng']);
    const ops = await get(['ops']);
    const engAgain = await get(['eng']);
    expect([eng.status, ops.status]).toEqual([200, 200]);
    expect(eng.cacheControl).toMatch(/^private/);
    expect(eng.vary.toLowerCase()).toContain('authorization');
    expect(eng.etag).not.toBe(ops.etag);
    expect(engAgain.etag).toBe(eng.etag);
    // PAGE_SIZE 1: first pages are `eng_only` and `everyone` — never the other team's.
    expect(eng.names).toEqual(['eng_only']);
    expect(ops.names).toEqual(['everyone']);
    expect((await fetch(`${gw.url}/prompts`)).status).toBe(401);
  });
});

describe('sessions and keys', () => {
  it("another principal presenting a session's id meets an unknown session (404)", async () => {
    const ada = bearer(await token({ sub: 'ada' }));
    const open = await fetch(gw.mcpUrl, postInit(initialize(), { headers: ada }));
    expect(open.status).toBe(200);
    const session = open.headers.get('mcp-session-id')!;
    const ping = (headers: Record<string, string>) =>
      fetch(gw.mcpUrl, postInit(request('ping'), { session, version: '2025-11-25', headers }));
    expect((await ping(ada)).status).toBe(200);
    await expectError(await ping(bearer(await token({ sub: 'bob' }))), 404, -32001);
    // Ada's next token (a refresh) is still Ada: the session goes on.
    expect((await ping(bearer(await token({ sub: 'ada' })))).status).toBe(200);
  });

  it('an API key lists its view until revoked; then it is refused and its stream ends', async () => {
    const admin = { authorization: `Bearer ${gw.adminToken}`, 'content-type': 'application/json' };
    const made = await fetch(`${gw.url}/admin/keys`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'e2e-ops', groups: ['ops'] }),
    });
    expect(made.status).toBe(201);
    const { key, id } = (await made.json()) as { key: string; id: string };
    expect(await allNames(bearer(key))).toEqual(['everyone', 'ops_only']);

    const open = await fetch(gw.mcpUrl, postInit(initialize(), { headers: bearer(key) }));
    const session = open.headers.get('mcp-session-id')!;
    const stream = readEvents(await fetch(gw.mcpUrl, { headers: { ...streamHeaders(session), ...bearer(key) } }));
    expect(stream.response.status).toBe(200);
    expect(await stream.ended(1000)).toBe(false);

    expect((await fetch(`${gw.url}/admin/keys/${id}`, { method: 'DELETE', headers: admin })).status).toBeLessThan(300);
    await expectError(await listPage(bearer(key)), 401, -32000);
    // Ended at a keepalive (300 ms here), not when the client gives up.
    await waitUntil(() => stream.ended(500), 'the revoked key ends its stream', 10_000);
  });
});
