/**
 * Upstream credentials by the client-credentials grant (oauth.ts) through
 * the upstream client, against the test authorization server and an MCP
 * server that verifies its tokens: one token per upstream however many
 * requests and clients, refreshed before expiry, renewed once on a 401, and
 * never a secret or token in an error.
 */
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { UpstreamClient, UpstreamError } from '../../src/catalog/upstreams/client.js';
import type { UpstreamOAuth } from '../../src/catalog/upstreams/schema.js';
import { bearerSource, forgetTokens, refreshAt, RETRY_AFTER_MS } from '../../src/catalog/upstreams/oauth.js';
import { startAuthServer, type AuthServer } from '../helpers/auth-server.js';
import { protectedMcpServer, type ProtectedMcp } from '../helpers/auth/protected-mcp.js';
import { body, listen, stop } from '../helpers/http-server.js';

const SECRET = 'gw-client-secret-value';
const clientInfo = { name: 'promptgate-test', version: '1' };
const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(cleanup.map((f) => f()));
});
beforeEach(() => forgetTokens());

async function setup(verify: 'jwt' | 'introspect') {
  const as = await startAuthServer({
    tokens: verify === 'jwt' ? 'jwt' : 'opaque',
    clients: [
      { client_id: 'gw', client_secret: SECRET, scope: 'prompts:read' },
      { client_id: 'rs', client_secret: 'rs-secret' },
    ],
  });
  const mcp = await protectedMcpServer(as, { verify, introspector: { clientId: 'rs', clientSecret: 'rs-secret' } });
  cleanup.push(
    () => as.stop(),
    () => mcp.close(),
  );
  return { as, mcp };
}

const grant = (as: AuthServer, mcp: ProtectedMcp, o: Partial<UpstreamOAuth> = {}): UpstreamOAuth => ({
  tokenUrl: new URL(as.tokenEndpoint),
  clientId: 'gw',
  clientSecret: SECRET,
  authMethod: 'client_secret_basic',
  scope: 'prompts:read',
  resource: mcp.url,
  ...o,
});
const clientFor = (mcp: ProtectedMcp, o: UpstreamOAuth, now?: () => number) =>
  new UpstreamClient({
    url: new URL(mcp.url),
    headers: {},
    timeoutMs: 3000,
    clientInfo,
    auth: bearerSource('up', o, 3000, undefined, now),
  });
const tokenCalls = (as: AuthServer) => as.requests.filter((r) => r.path === '/token');

type Stall = 'no' | 'until-aborted' | 'forever';
/**
 * A token fetch that reaches the endpoint unless `stall()` says otherwise: then one that settles only
 * when its own deadline aborts it, or never (as one the runtime cancelled with its request). Counts calls.
 */
function stallingFetch(stall: () => Stall): { fetchFn: typeof fetch; calls: () => number } {
  let calls = 0;
  const fetchFn: typeof fetch = (input, init) => {
    calls++;
    const how = stall();
    if (how === 'no') return fetch(input, init);
    return new Promise<Response>((_resolve, reject) => {
      if (how === 'until-aborted')
        init?.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    });
  };
  return { fetchFn, calls: () => calls };
}

/**
 * A grant's source on a clock of the test's own, its first token obtained, then the clock in the last
 * minute of that one-hour token (an early refresh due) and the endpoint stalled `how` until `resume()`.
 */
async function inEarlyRefresh(id: string, how: Stall) {
  const { as, mcp } = await setup('jwt');
  let stalled = false;
  const { fetchFn, calls } = stallingFetch(() => (stalled ? how : 'no'));
  let clock = Date.now();
  const source = bearerSource(id, grant(as, mcp), 300, fetchFn, () => clock);
  const first = await source.token();
  clock += 3_550_000;
  stalled = true;
  const advance = (ms: number) => void (clock += ms);
  return { as, source, first, calls, advance, resume: () => void (stalled = false) };
}

describe('client-credentials upstream tokens', () => {
  it('one token serves every request and client; it is the only Authorization the upstream sees', async () => {
    const { as, mcp } = await setup('jwt');
    const clients = [clientFor(mcp, grant(as, mcp)), clientFor(mcp, grant(as, mcp))];
    cleanup.push(...clients.map((c) => () => c.close()));
    // First contact from both at once: the token is fetched once.
    const lists = await Promise.all(clients.map((c) => c.listPrompts()));
    expect(lists.map((l) => l.map((p) => p.name))).toEqual([
      ['greet', 'summarise'],
      ['greet', 'summarise'],
    ]);
    const got = await clients[0]!.request('prompts/get', { name: 'greet', arguments: { who: 'ada' } });
    expect(JSON.stringify(got)).toContain('greet ada');
    expect(tokenCalls(as)).toHaveLength(1);
    expect(tokenCalls(as)[0]).toMatchObject({
      clientId: 'gw',
      params: { grant_type: 'client_credentials', scope: 'prompts:read', resource: mcp.url },
    });
    const token = as.issued[0]!.token;
    expect(new Set(mcp.seen.map((h) => h.authorization))).toEqual(new Set([`Bearer ${token}`]));
    expect(mcp.refused()).toBe(0);
  });

  it('client_secret_post authenticates in the form', async () => {
    const { as, mcp } = await setup('jwt');
    const c = clientFor(mcp, grant(as, mcp, { authMethod: 'client_secret_post' }));
    cleanup.push(() => c.close());
    await c.listPrompts();
    const call = tokenCalls(as)[0]!;
    expect(call.clientId).toBe('gw');
    expect(call.headers.authorization).toBeUndefined();
    expect(call.params.client_id).toBe('gw');
  });

  it('a 401 from the upstream drops the token and retries once with a new one', async () => {
    const { as, mcp } = await setup('introspect');
    const c = clientFor(mcp, grant(as, mcp));
    cleanup.push(() => c.close());
    await c.listPrompts();
    as.revokeAll(); // the upstream now refuses the cached token
    const names = (await c.listPrompts()).map((p) => p.name);
    expect(names).toEqual(['greet', 'summarise']);
    expect(mcp.refused()).toBe(1);
    expect(tokenCalls(as)).toHaveLength(2);
    expect(mcp.seen.at(-1)!.authorization).toBe(`Bearer ${as.issued[1]!.token}`);
    // Refused again after the fresh token: the 401 is the answer (no loop).
    as.revokeAll();
    as.failTokens({ status: 400, error: 'invalid_grant' });
    await expect(c.listPrompts()).rejects.toMatchObject({ fault: 'credentials' });
  });

  it('refreshes a minute before expiry, or at half life for short tokens', async () => {
    expect(refreshAt(0, 3_600_000)).toBe(3_540_000);
    expect(refreshAt(0, 120_000)).toBe(60_000);
    expect(refreshAt(0, 10_000)).toBe(5_000);
    const { as, mcp } = await setup('jwt');
    let clock = Date.now();
    const c = clientFor(mcp, grant(as, mcp), () => clock);
    cleanup.push(() => c.close());
    await c.listPrompts();
    expect(tokenCalls(as)).toHaveLength(1);
    clock += 3_500_000; // 58 min 20 s into a one-hour token: still good
    await c.listPrompts();
    expect(tokenCalls(as)).toHaveLength(1);
    clock += 45_000; // less than a minute left: a new one, fetched while the cached one serves
    as.tokenTtl = 10;
    await c.listPrompts();
    // The new token is what the requests after the refresh carry.
    await vi.waitFor(async () => {
      await c.listPrompts();
      expect(mcp.seen.at(-1)!.authorization).toBe(`Bearer ${as.issued[1]?.token}`);
    });
    expect(tokenCalls(as)).toHaveLength(2);
    clock += 4_000; // a 10 s token, 4 s in
    await c.listPrompts();
    expect(tokenCalls(as)).toHaveLength(2);
    clock += 2_000; // past half its life
    await c.listPrompts();
    await vi.waitFor(() => expect(tokenCalls(as)).toHaveLength(3));
    expect(mcp.refused()).toBe(0);
  });

  it('a refresh that fails before expiry keeps the cached token, and asks the endpoint again only after a rest', async () => {
    const { as, mcp } = await setup('jwt');
    let clock = Date.now();
    const c = clientFor(mcp, grant(as, mcp), () => clock);
    cleanup.push(() => c.close());
    await c.listPrompts();
    const token = as.issued[0]!.token;
    clock += 3_550_000; // in the last minute of a one-hour token: time to refresh, but it is still good
    as.failTokens({ status: 503, error: 'temporarily_unavailable' });
    expect((await c.listPrompts()).map((p) => p.name)).toEqual(['greet', 'summarise']);
    await vi.waitFor(() => expect(tokenCalls(as)).toHaveLength(2));
    await c.listPrompts(); // within the rest: the endpoint is not asked
    expect(tokenCalls(as)).toHaveLength(2);
    clock += RETRY_AFTER_MS;
    await c.listPrompts();
    expect(tokenCalls(as)).toHaveLength(3);
    expect(new Set(mcp.seen.map((h) => h.authorization))).toEqual(new Set([`Bearer ${token}`]));
    // Expired, and the endpoint still failing: that is the answer.
    clock += 60_000;
    await expect(c.listPrompts()).rejects.toMatchObject({ fault: 'credentials' });
    expect(tokenCalls(as)).toHaveLength(4);
    // The endpoint back: a new token at once.
    as.failTokens(null);
    await c.listPrompts();
    expect(tokenCalls(as)).toHaveLength(5);
    expect(mcp.seen.at(-1)!.authorization).toBe(`Bearer ${as.issued[1]!.token}`);
  });

  it('in the early-refresh window a caller gets the cached token at once, however slow the refresh', async () => {
    const { as, source, first, calls, advance, resume } = await inEarlyRefresh('slow-refresh', 'until-aborted');
    // A caller whose deadline is shorter than the endpoint's answer still gets a token: the cached one.
    expect(await source.token(AbortSignal.timeout(20))).toBe(first);
    expect(await source.token()).toBe(first);
    expect(calls()).toBe(2); // one refresh, shared
    await new Promise((r) => setTimeout(r, 400)); // the hung refresh given up on: the cached token kept
    // In its last seconds (an upstream counting whole seconds may refuse it already) a caller waits for the new one.
    advance(48_000);
    await expect(source.token(AbortSignal.timeout(20))).rejects.toMatchObject({ fault: 'credentials' });
    expect(calls()).toBe(3);
    // Once expired, nothing cached can serve: the caller waits for the endpoint, and its failure is the answer.
    advance(60_000);
    resume();
    as.failTokens({ status: 503, error: 'temporarily_unavailable' });
    await new Promise((r) => setTimeout(r, 400)); // the hung refresh given up on
    await expect(source.token()).rejects.toMatchObject({ fault: 'credentials' });
  });
  it('a token fetch that never settles (its request ended) is taken for dead past its deadline; the next caller fetches anew', async () => {
    const { as, source, first, calls, advance, resume } = await inEarlyRefresh('dead-refresh', 'forever');
    expect(await source.token()).toBe(first);
    expect(calls()).toBe(2);
    // The token's last seconds, the dead fetch long past its deadline: a new fetch, not a wait on the dead one.
    advance(48_000);
    resume();
    const next = await source.token(AbortSignal.timeout(2_000));
    expect(next).not.toBe(first);
    expect(next).toBe(as.issued.at(-1)!.token);
    expect(calls()).toBe(3);
  });
  it('a token endpoint that never answers is given up on within the upstream timeout, whatever the caller waits with', async () => {
    const { as, mcp } = await setup('jwt');
    const hang = await listen(async (req) => {
      await body(req); // and never answer
    });
    cleanup.push(() => stop(hang.http));
    const source = bearerSource('hung', grant(as, mcp, { tokenUrl: new URL(`${hang.url}/token`) }), 300);
    // A caller without a deadline (a change stream's signal only aborts at shutdown) and one with its own.
    const forever = new AbortController();
    const started = Date.now();
    const failure = (p: Promise<string>) =>
      p.then(
        () => undefined,
        (x: unknown) => x as UpstreamError,
      );
    const [a, b] = await Promise.all([failure(source.token(forever.signal)), failure(source.token())]);
    expect(Date.now() - started).toBeLessThan(3_000);
    for (const e of [a, b])
      expect([e?.fault, e?.message]).toEqual(['credentials', 'token endpoint did not answer in time']);
    // A caller that gives up sooner stops waiting on the shared fetch at once.
    const soon = AbortSignal.timeout(20);
    const t0 = Date.now();
    const c = (await source.token(soon).catch((x: unknown) => x)) as UpstreamError;
    expect(c.message).toBe('token endpoint did not answer in time');
    expect(Date.now() - t0).toBeLessThan(250);
  });
  it('a failing token endpoint is a `credentials` fault that names no secret and no token', async () => {
    const { as, mcp } = await setup('jwt');
    as.failTokens({ status: 401, error: 'invalid_client' });
    const c = clientFor(mcp, grant(as, mcp));
    cleanup.push(() => c.close());
    const e = (await c.listPrompts().catch((x: unknown) => x)) as UpstreamError;
    expect(e).toBeInstanceOf(UpstreamError);
    expect([e.fault, e.message]).toEqual(['credentials', 'token endpoint answered 401 (invalid_client)']);
    expect(mcp.seen).toHaveLength(0); // the upstream is never called without its token

    // An endpoint that echoes the request (secret and all) into its error: none of it is repeated.
    const echo = await listen(async (req, res) => {
      const text = `${JSON.stringify(req.headers)} ${await body(req)}`;
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: `bad ${text}`, error_description: text }));
    });
    cleanup.push(() => stop(echo.http));
    const e2 = (await clientFor(mcp, grant(as, mcp, { tokenUrl: new URL(`${echo.url}/token`) }))
      .listPrompts()
      .catch((x: unknown) => x)) as UpstreamError;
    expect(e2.message).toBe('token endpoint answered 400');
    // A token endpoint that hands out something other than a Bearer token is refused too.
    const odd = await listen(async (req, res) => {
      await body(req);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ access_token: 'tok-123', token_type: 'DPoP', expires_in: 60 }));
    });
    cleanup.push(() => stop(odd.http));
    const e3 = (await clientFor(mcp, grant(as, mcp, { tokenUrl: new URL(`${odd.url}/token`) }))
      .listPrompts()
      .catch((x: unknown) => x)) as UpstreamError;
    expect(e3.message).toBe('token endpoint answered a token that is not a Bearer token');
    // JSON that is no object (null, a number, a list) is an answer without a token, on success or failure.
    const answers = ['null', '42', '["tok-123"]', '"tok-123"'];
    const bare = await listen(async (req, res) => {
      await body(req);
      const i = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('i'));
      res
        .writeHead(i >= answers.length ? 500 : 200, { 'content-type': 'application/json' })
        .end(answers[i % answers.length]);
    });
    cleanup.push(() => stop(bare.http));
    const bareAnswer = async (i: number) => {
      const g = grant(as, mcp, { tokenUrl: new URL(`${bare.url}/token?i=${i}`) });
      const err = (await clientFor(mcp, g)
        .listPrompts()
        .catch((x: unknown) => x)) as UpstreamError;
      return [err.fault, err.message];
    };
    for (let i = 0; i < answers.length; i++)
      expect(await bareAnswer(i)).toEqual(['credentials', 'token endpoint answered without a usable access_token']);
    expect(await bareAnswer(answers.length)).toEqual(['credentials', 'token endpoint answered 500']);
    for (const m of [e.message, e2.message, e3.message]) {
      expect(m).not.toContain(SECRET);
      expect(m).not.toContain(Buffer.from(`gw:${SECRET}`).toString('base64'));
      expect(m).not.toContain('tok-123');
    }
  });
});
