/**
 * Upstream credentials through `wrangler dev`, against the test authorization
 * server: the downstream client's own Authorization never reaches an
 * upstream (an upstream without credentials sees none, one with an `oauth`
 * entry sees only its client-credentials token); an upstream that verifies
 * bearer tokens works through the gateway, across token expiry; and a
 * failing token endpoint shows in /status and errors without a secret or a
 * token anywhere, logs included.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthServer, type AuthServer } from '../helpers/auth-server.js';
import { protectedMcpServer, type ProtectedMcp } from '../helpers/auth/protected-mcp.js';
import { waitUntil } from '../helpers/live.js';
import { legacyServer, type LegacyPrompt } from '../helpers/upstreams.js';
import { startGateway, type Gateway } from '../helpers/wrangler-dev.js';

const CLIENT_TOKEN = 'client-secret-token';
const UPSTREAM_SECRET = 'gw-upstream-client-secret-0f3a9c';
const SHORT_TTL_S = 4;
const LEGACY: LegacyPrompt[] = [
  { name: 'beta', text: 'beta {who}', args: [{ name: 'who', required: true, values: ['world', 'wombat'] }] },
];

let gw: Gateway;
let as: AuthServer;
let shortAs: AuthServer;
let brokenAs: AuthServer;
let plain: Awaited<ReturnType<typeof legacyServer>>;
let secured: ProtectedMcp;
let refreshing: ProtectedMcp;
let broken: ProtectedMcp;
const stops: (() => Promise<void>)[] = [];

const clients = [
  { client_id: 'gw', client_secret: UPSTREAM_SECRET, scope: 'prompts:read' },
  { client_id: 'rs', client_secret: 'rs-secret' },
];
const introspector = { clientId: 'rs', clientSecret: 'rs-secret' };
const oauth = (a: AuthServer, resource: string) => ({
  tokenUrl: a.tokenEndpoint,
  clientId: 'gw',
  clientSecret: 'UPSTREAM_CLIENT_SECRET',
  scope: 'prompts:read',
  resource,
});

beforeAll(async () => {
  as = await startAuthServer({ tokens: 'jwt', clients });
  // Short-lived opaque tokens, checked by introspection: an expired one is refused by the upstream.
  shortAs = await startAuthServer({ tokens: 'opaque', clients, tokenTtl: SHORT_TTL_S });
  brokenAs = await startAuthServer({ clients });
  brokenAs.failTokens({ status: 401, error: 'invalid_client' });
  plain = await legacyServer(LEGACY);
  secured = await protectedMcpServer(as, { verify: 'jwt' });
  refreshing = await protectedMcpServer(shortAs, { verify: 'introspect', introspector });
  broken = await protectedMcpServer(brokenAs, { verify: 'jwt' });
  stops.push(
    ...[as, shortAs, brokenAs].map((a) => () => a.stop()),
    ...[plain, secured, refreshing, broken].map((s) => () => s.close()),
  );
  const upstreams = [
    { id: 'plain', url: plain.url },
    { id: 'secured', url: secured.url, oauth: oauth(as, secured.url) },
    { id: 'refreshing', url: refreshing.url, oauth: oauth(shortAs, refreshing.url) },
    { id: 'broken', url: broken.url, oauth: oauth(brokenAs, broken.url) },
  ];
  gw = await startGateway({
    vars: {
      UPSTREAMS: JSON.stringify(upstreams),
      UPSTREAM_ALLOW_HTTP_LOOPBACK: 'true',
      UPSTREAM_CLIENT_SECRET: UPSTREAM_SECRET,
    },
  });
}, 120_000);

afterAll(async () => {
  await gw?.stop();
  await Promise.all(stops.map((f) => f()));
});

/** An SDK client that sends its own bearer token on every request. */
async function connect(): Promise<Client> {
  const client = new Client({ name: 'credentials-e2e', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(gw.mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${CLIENT_TOKEN}` } },
    }),
  );
  return client;
}

const everyValue = (seen: IncomingHttpHeaders[]) => seen.flatMap((h) => Object.values(h).flat().map(String));
const issuedTo = (a: AuthServer) =>
  new Set(a.issued.filter((t) => t.clientId === 'gw').map((t) => `Bearer ${t.token}`));

describe('upstream credentials', () => {
  it("the client's Authorization never reaches an upstream: list, get and complete", async () => {
    const client = await connect();
    const names = (await client.listPrompts()).prompts.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['plain.beta', 'secured.greet', 'secured.summarise']));
    const plainGet = await client.getPrompt({ name: 'plain.beta', arguments: { who: 'world' } });
    expect(JSON.stringify(plainGet.messages)).toContain('beta world');
    const securedGet = await client.getPrompt({ name: 'secured.greet', arguments: { who: 'ada' } });
    expect(JSON.stringify(securedGet.messages)).toContain('greet ada');
    for (const name of ['plain.beta', 'secured.greet']) {
      const done = await client.complete({
        ref: { type: 'ref/prompt', name },
        argument: { name: 'who', value: 'w' },
      });
      expect(done.completion.values).toEqual(['world', 'wombat']);
    }
    await client.close();

    // The plain upstream got requests, none with any Authorization; nothing anywhere names the client's token.
    expect(plain.seen.length).toBeGreaterThan(0);
    expect(plain.seen.filter((h) => h.authorization !== undefined)).toEqual([]);
    for (const seen of [plain.seen, secured.seen, refreshing.seen, broken.seen])
      expect(everyValue(seen).filter((v) => v.includes(CLIENT_TOKEN))).toEqual([]);
    // The secured upstream saw only its own client-credentials tokens from the AS, never refused one.
    expect(secured.seen.length).toBeGreaterThan(0);
    const mine = issuedTo(as);
    expect(secured.seen.filter((h) => !mine.has(String(h.authorization)))).toEqual([]);
    expect(secured.refused()).toBe(0);
    // One token served the Worker's cold listing and the upstream's object alike (one isolate here).
    expect(as.requests.filter((r) => r.path === '/token' && r.clientId === 'gw').length).toBe(mine.size);
    expect(mine.size).toBe(1);
  });

  it('an upstream verifying short-lived tokens keeps working: the gateway refreshes before expiry', async () => {
    const client = await connect();
    const get = async () =>
      JSON.stringify((await client.getPrompt({ name: 'refreshing.greet', arguments: { who: 'x' } })).messages);
    expect(await get()).toContain('greet x');
    const first = shortAs.issued.at(-1)!;
    // Until the first token has expired (the AS's own clock, an event, not a guess at a duration).
    await waitUntil(() => Date.now() > first.exp * 1000 + 100, 'the first token to expire', (SHORT_TTL_S + 5) * 1000);
    expect(await get()).toContain('greet x');
    const later = shortAs.issued.at(-1)!;
    expect(later.token).not.toBe(first.token);
    expect(refreshing.seen.at(-1)!.authorization).toBe(`Bearer ${later.token}`);
    // Refreshed ahead of expiry (half life for a 4 s token): the upstream never had to refuse one.
    expect(refreshing.refused()).toBe(0);
    await client.close();
  });

  it('a failing token endpoint shows in /status and errors, with no secret or token anywhere', async () => {
    const res = await fetch(`${gw.url}/admin/upstreams/refresh`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.adminToken}` },
    });
    const refreshed = await res.text();
    expect(JSON.parse(refreshed).upstreams.broken).toMatchObject({
      ok: false,
      error: 'credentials: token endpoint answered 401 (invalid_client)',
    });
    const status = await (await fetch(`${gw.url}/status`)).text();
    const broke = (
      JSON.parse(status) as { upstreams: { id: string; fault: string; lastError: string }[] }
    ).upstreams.find((u) => u.id === 'broken');
    expect(broke).toMatchObject({
      fault: 'credentials',
      lastError: 'credentials: token endpoint answered 401 (invalid_client)',
    });
    expect(broken.seen).toEqual([]); // never called without its token

    const client = await connect();
    const err = await client.getPrompt({ name: 'broken.greet' }).then(
      () => 'no error',
      (e: unknown) => String(e),
    );
    await client.close();
    const logs = gw.output();
    const ready = logs.indexOf('Ready on');
    expect(ready).toBeGreaterThan(0);
    // The failure was logged (so the check below reads the lines that matter).
    expect(logs.slice(ready)).toMatch(/upstream list failed.*credentials: token endpoint answered 401/);
    const tokens = [...as.issued, ...shortAs.issued].map((t) => t.token);
    expect(tokens.length).toBeGreaterThan(0);
    const basic = Buffer.from(`gw:${UPSTREAM_SECRET}`).toString('base64');
    for (const [what, text] of [
      ['refresh', refreshed],
      ['status', status],
      ['error', err],
      // The Worker's own logs: wrangler's start-up table lists this test's --var values (a deployed secret is hidden).
      ['logs', logs.slice(ready)],
    ] as const) {
      expect(text, what).not.toContain(UPSTREAM_SECRET);
      expect(text, what).not.toContain(basic);
      expect(text, what).not.toContain(CLIENT_TOKEN);
      for (const t of tokens) expect(text, what).not.toContain(t);
    }
  });
});
