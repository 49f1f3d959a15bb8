/**
 * The upstream client against real MCP servers of every era, and against
 * servers that fail in the ways real ones do.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { hangingServer, pingingServer, pollingServer, versionServer } from '../helpers/session-servers.js';
import { MAX_PONGS_PER_REPLY } from '../../src/catalog/upstreams/session-calls.js';
import { UpstreamClient, UpstreamError } from '../../src/catalog/upstreams/client.js';
import { newClient } from '../../src/catalog/upstreams/client-for.js';
import { parseUpstreams } from '../../src/catalog/upstreams/parse.js';
import { cutListed, MAX_LISTED_BYTES } from '../../src/catalog/upstreams/prompt-pages.js';
import { readSse } from '../../src/catalog/upstreams/sse-reader.js';
import { pagedUpstream } from '../helpers/paged-upstream.js';
import {
  everything,
  faultyServer,
  legacyServer,
  modernServer,
  sseServer,
  strictLegacyServer,
  type Fault,
  type LegacyPrompt,
  type Running,
  closedAfterAll,
} from '../helpers/upstreams.js';

const clientInfo = { name: 'promptgate-test', version: '1' };
const client = (url: string, timeoutMs = 2000) =>
  new UpstreamClient({ url: new URL(url), headers: {}, timeoutMs, clientInfo });
const started = closedAfterAll();

/** Waits (up to 2 s) for what a server records after the call returned: a fire-and-forget pong, cancel or DELETE. */
async function soon(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
}

const LEGACY: LegacyPrompt[] = [
  { name: 'alpha', text: 'alpha' },
  { name: 'beta', text: 'beta {who}', args: [{ name: 'who', required: true, values: ['world', 'wombat', 'team'] }] },
  { name: 'gamma', text: 'gamma' },
  { name: 'delta', text: 'delta' },
  { name: 'epsilon', text: 'epsilon' },
];

describe('the initialized notification', () => {
  it('goes out beside the first request; a server that refuses requests until it has seen it gets the request again', async () => {
    const strict = await started(strictLegacyServer(['one', 'two']));
    const c = client(strict.url);
    expect((await c.listPrompts()).map((p) => p.name)).toEqual(['one', 'two']);
    expect(c.era).toBe('legacy');
    // The first list raced the notification and was refused: the retry, not luck, made it work.
    expect(strict.refused()).toBe(1);
    await c.close();
  });
});

describe('legacy Streamable HTTP upstream (SDK v1, sessions)', () => {
  let server: Awaited<ReturnType<typeof legacyServer>>;
  beforeAll(async () => {
    server = await started(legacyServer(LEGACY));
  });
  it('initializes, follows pagination, gets and completes', async () => {
    const c = client(server.url);
    expect((await c.listPrompts()).map((p) => p.name)).toEqual(LEGACY.map((p) => p.name));
    expect(c.era).toBe('legacy');
    const got = await c.request('prompts/get', { name: 'beta', arguments: { who: 'world' } });
    expect(got.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'beta world' } }]);
    const done = await c.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'beta' },
      argument: { name: 'who', value: 'w' },
    });
    expect((done.completion as { values: string[] }).values).toEqual(['world', 'wombat']);
    await c.close();
  });
  it('keeps upstream -32602 errors as they are', async () => {
    const c = client(server.url);
    const err = await c.request('prompts/get', { name: 'beta', arguments: {} }).catch((e) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err).toMatchObject({ kind: 'rpc', code: -32602 });
    await c.close();
  });
  it("cuts the credentials it sent out of the upstream's error text: headers, words of them, its bearer token", async () => {
    const key = 'k3y-"quoted"-value';
    const token = 'tok-oauth-0123456789';
    const c = new UpstreamClient({
      url: new URL(server.url),
      headers: { 'x-api-key': key, 'x-team': 'ops' },
      timeoutMs: 2000,
      clientInfo,
      auth: { token: () => Promise.resolve(token), rejected: () => undefined },
    });
    // The server echoes what it was sent, as a misconfigured proxy or a chatty server does.
    server.setFailing({
      message: `bad credentials: key ${key}, Bearer ${token}, team ops`,
      data: { sent: { authorization: `Bearer ${token}`, [key]: key } },
    });
    try {
      const err = (await c.listPrompts().catch((e: unknown) => e)) as UpstreamError;
      expect(err).toBeInstanceOf(UpstreamError);
      expect(err).toMatchObject({ kind: 'rpc', code: -32603 });
      // (The SDK server words its errors `MCP error <code>: <message>`.)
      expect(err.message).toBe('MCP error -32603: bad credentials: key [redacted], Bearer [redacted], team ops');
      expect(err.data).toEqual({ sent: { authorization: 'Bearer [redacted]', '[redacted]': '[redacted]' } });
      // The upstream did get them: the cut is of its answer, not of what was sent.
      expect(server.seen.at(-1)).toMatchObject({ 'x-api-key': key, authorization: `Bearer ${token}` });
      // A secret cut in two by the message's bound loses its first characters too.
      server.setFailing({ message: `${'x'.repeat(972)} ${token}` });
      const cut = (await c.listPrompts().catch((e: unknown) => e)) as UpstreamError;
      expect(cut.message).toBe(`MCP error -32603: ${'x'.repeat(972)} [redacted]…`);
    } finally {
      server.setFailing(false);
      await c.close();
    }
  });
  it('cuts a configured secret wherever it sits in a header value, and a Basic credential decoded', async () => {
    const sid = 'S1d-v4lue';
    const password = 'hunter2hunter2';
    const basic = btoa(`svc:${password}`);
    const opts = { separator: '.', secrets: { SID: sid, BASIC: basic }, ownSecrets: new Set<string>() };
    const entry = { id: 'echo', url: server.url, headers: { cookie: 'sid=${SID}', authorization: 'Basic ${BASIC}' } };
    const [u] = parseUpstreams(JSON.stringify([entry]), { ...opts, allowHttpLoopback: true });
    expect(u!.headers).toMatchObject({ cookie: `sid=${sid}`, authorization: `Basic ${basic}` });
    const c = newClient(u!);
    // Neither is a whole header value nor a whitespace-separated word of one.
    server.setFailing({ message: `bad session ${sid}; bad password ${password} for svc:${password}` });
    try {
      const err = (await c.listPrompts().catch((e: unknown) => e)) as UpstreamError;
      expect(err).toBeInstanceOf(UpstreamError);
      expect(err.message).toBe('MCP error -32603: bad session [redacted]; bad password [redacted] for [redacted]');
      expect(server.seen.at(-1)).toMatchObject({ cookie: `sid=${sid}` });
    } finally {
      server.setFailing(false);
      await c.close();
    }
  });
  it('re-initializes when the upstream forgets the session (404)', async () => {
    const c = client(server.url);
    await c.listPrompts();
    server.dropSessions(); // the next request with the old id gets 404
    expect((await c.request('prompts/get', { name: 'alpha' })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'alpha' } },
    ]);
    expect(server.sessions()).toBe(1);
    await c.close();
  });
});

describe('modern upstream (SDK v2 createMcpHandler, 2026-07-28)', () => {
  it('is detected as modern and served with the envelope and headers', async () => {
    const server = await started(modernServer(['plan', 'recap']));
    const c = client(server.url);
    const names = (await c.listPrompts()).map((p) => p.name);
    expect(c.era).toBe('modern');
    expect(names.sort()).toEqual(['plan', 'recap']);
    const got = await c.request('prompts/get', { name: 'plan', arguments: { topic: 'launch' } });
    expect(got.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'plan about launch' } }]);
  });

  it('says "method not found" with HTTP 404: that is its JSON-RPC answer, not a failure of the upstream', async () => {
    // No completable argument: this server has no completion/complete (SDK v2 answers -32601 with a 404).
    const server = await started(modernServer(['plan']));
    const c = client(server.url);
    const asked = c.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'plan' },
      argument: { name: 'topic', value: 'l' },
    });
    await expect(asked).rejects.toMatchObject({ kind: 'rpc', code: -32601 });
    // The connection is still good.
    expect((await c.listPrompts()).map((p) => p.name)).toEqual(['plan']);
  });

  it('a 404 whose body is no JSON-RPC answer (a proxy: the route has gone) is an HTTP failure', async () => {
    const server = await started(modernServer(['plan', 'gone'], { gone: 'gone' }));
    const c = client(server.url);
    await c.listPrompts();
    await expect(c.request('prompts/get', { name: 'gone', arguments: { topic: 'x' } })).rejects.toMatchObject({
      kind: 'http',
      fault: 'http_404',
    });
  });
});

/**
 * Lists, listens, lets the upstream announce a change once the stream is open (its event-stream
 * response has arrived: an event, not a guessed delay), and reports what the listener saw.
 */
async function changesSeen(url: string, announce: () => unknown): Promise<{ changes: number; outcome: string }> {
  let opened!: () => void;
  const streamOpen = new Promise<void>((r) => (opened = r));
  const c = new UpstreamClient({
    url: new URL(url),
    headers: {},
    timeoutMs: 2000,
    clientInfo,
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      const listening = init?.method === 'GET' || String(init?.body ?? '').includes('"subscriptions/listen"');
      if (listening && (res.headers.get('content-type') ?? '').includes('text/event-stream')) opened();
      return res;
    },
  });
  await c.listPrompts();
  let changes = 0;
  const ctl = new AbortController();
  const done = c.listen(() => void changes++, ctl.signal);
  await streamOpen;
  await announce();
  const deadline = Date.now() + 10_000;
  while (changes === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  await new Promise((r) => setTimeout(r, 200)); // and nothing more
  ctl.abort();
  const outcome = await done;
  await c.close();
  return { changes, outcome };
}

describe('change notifications', () => {
  it('a modern upstream is followed with subscriptions/listen', async () => {
    const server = await started(modernServer(['plan']));
    expect(await changesSeen(server.url, () => server.notifyChanged())).toEqual({ changes: 1, outcome: 'ended' });
  });
  it('a modern upstream that refuses subscriptions/listen (404 -32601, -32601 on the stream, any error or final result before the acknowledgement, an acknowledgement of nothing it follows) is not listened to again', async () => {
    const server = await started(modernServer(['plan']));
    const refusal = (id: unknown, code = -32601) =>
      JSON.stringify({ jsonrpc: '2.0', id, error: { code, message: 'Method not found' } });
    const sse = (...data: string[]) =>
      new Response(data.map((d) => `event: message\ndata: ${d}\n\n`).join(''), {
        headers: { 'content-type': 'text/event-stream' },
      });
    const ackOf = (notifications: Record<string, boolean>) =>
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications } });
    const ack = ackOf({ promptsListChanged: true });
    /** A stream that stays open after its one event, as a listen that holds. */
    const held = (data: string) =>
      new Response(
        new ReadableStream({
          start: (c) => c.enqueue(new TextEncoder().encode(`event: message\ndata: ${data}\n\n`)),
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      );
    const refusals: Record<string, [(id: unknown) => Response, 'unsupported' | 'ended']> = {
      json: [
        (id) => new Response(refusal(id), { status: 404, headers: { 'content-type': 'application/json' } }),
        'unsupported',
      ],
      bare: [() => new Response('not here', { status: 404 }), 'unsupported'],
      stream: [(id) => sse(refusal(id)), 'unsupported'],
      invalid: [(id) => sse(refusal(id, -32602)), 'unsupported'],
      // Ended gracefully before it was acknowledged: asked again, it would end again.
      finalFirst: [
        (id) => sse(JSON.stringify({ jsonrpc: '2.0', id, result: { resultType: 'complete' } })),
        'unsupported',
      ],
      // Acknowledged first: the listen was followed, and its end is a stream that ended (re-listed, opened again).
      ended: [(id) => sse(ack, refusal(id, -32603)), 'ended'],
      // Acknowledged with none of the kinds it follows (this upstream has no skills): no stream is held for nothing.
      honorsNone: [() => held(ackOf({})), 'unsupported'],
      honorsOthers: [() => held(ackOf({ resourcesListChanged: true, toolsListChanged: true })), 'unsupported'],
    };
    for (const [how, [answer, outcome]] of Object.entries(refusals)) {
      const c = new UpstreamClient({
        url: new URL(server.url),
        headers: {},
        timeoutMs: 2000,
        clientInfo,
        fetch: async (input, init) => {
          const body = String(init?.body ?? '');
          if (!body.includes('"subscriptions/listen"')) return fetch(input, init);
          return answer((JSON.parse(body) as { id: unknown }).id);
        },
      });
      await c.listPrompts();
      expect(c.era).toBe('modern');
      // 'unsupported': the follow loop leaves the upstream to its poll instead of re-listing it every minute.
      expect(await c.listen(() => undefined, new AbortController().signal), how).toBe(outcome);
      await c.close();
    }
  });
  it('a legacy upstream is followed on its GET stream', async () => {
    const server = await started(legacyServer(LEGACY));
    expect((await changesSeen(server.url, () => server.notifyChanged())).changes).toBe(1);
  });
});

describe('close', () => {
  it('ends a listen in progress with "closed", in every era', async () => {
    const servers: Promise<Running>[] = [legacyServer(LEGACY), modernServer(['plan']), sseServer(['old_one'])];
    for (const server of await Promise.all(servers.map((s) => started(s)))) {
      const c = client(server.url);
      await c.listPrompts();
      let opened!: () => void;
      const open = new Promise<void>((r) => (opened = r));
      const listening = c.listen(() => undefined, new AbortController().signal, opened);
      await open;
      await c.close();
      expect(await listening).toBe('closed');
    }
  });
  it('a close while the handshake is under way still ends the session that handshake opens', async () => {
    for (const use of ['listen', 'request'] as const) {
      const server = await started(legacyServer(LEGACY));
      const c = client(server.url);
      // Not awaited: close comes while initialize is still on its way to the upstream.
      const using =
        use === 'listen'
          ? c.listen(() => undefined, new AbortController().signal)
          : c.listPrompts().then(
              () => 'listed',
              () => 'failed',
            );
      await c.close();
      await using;
      expect(server.sessions(), use).toBe(0);
      expect(c.era, use).toBeUndefined();
    }
  });
  it("a call that outlives its client's close still gets its answer, and leaves no session behind", async () => {
    const server = await started(legacyServer(LEGACY));
    const c = client(server.url);
    await c.listPrompts();
    // The upstream forgets the session, so the call meets a 404 after the close: it must be asked
    // again on a session of its own, which is ended right after.
    server.dropSessions();
    const got = c.request('prompts/get', { name: 'alpha' });
    const closing = c.close();
    expect((await got).messages).toEqual([{ role: 'user', content: { type: 'text', text: 'alpha' } }]);
    await closing;
    expect(server.sessions()).toBe(0);
    // And one that begins after the close: answered the same way.
    expect((await c.request('prompts/get', { name: 'gamma' })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'gamma' } },
    ]);
    expect(server.sessions()).toBe(0);
    expect(c.era).toBeUndefined();
  });
  it('a closed client listens no more: no new session, no stream', async () => {
    const server = await started(legacyServer(LEGACY));
    const c = client(server.url);
    await c.listPrompts();
    await c.close();
    const before = server.sessions();
    expect(await c.listen(() => undefined, new AbortController().signal)).toBe('closed');
    expect(server.sessions()).toBe(before);
  });
});

describe('HTTP+SSE upstream (2024-11-05)', () => {
  it('falls back when initialize is refused, and talks over the SSE stream', async () => {
    const server = await started(sseServer(['old_one', 'old_two']));
    const c = client(server.url);
    expect((await c.listPrompts()).map((p) => p.name)).toEqual(['old_one', 'old_two']);
    expect(c.era).toBe('sse');
    expect((await c.request('prompts/get', { name: 'old_two' })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'sse old_two' } },
    ]);
    await c.close();
  });

  it('a request waiting when the stream ends fails at once as closed; the next one opens a new link', async () => {
    const server = await started(sseServer(['old_one'], { dropOn: 'dropped' }));
    const c = client(server.url, 5000);
    await c.listPrompts();
    const sent = Date.now();
    await expect(c.request('prompts/get', { name: 'dropped' })).rejects.toMatchObject({ fault: 'closed' });
    // Not at its 5 s timeout: no reply can come on a stream that ended.
    expect(Date.now() - sent).toBeLessThan(2000);
    expect((await c.request('prompts/get', { name: 'old_one' })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'sse old_one' } },
    ]);
    await c.close();
  });
});

describe('server-everything (streamableHttp)', () => {
  it('lists, gets and completes its prompts', async () => {
    const server = await started(everything());
    const c = client(server.url, 5000);
    const prompts = await c.listPrompts();
    const names = prompts.map((p) => p.name);
    expect(names).toEqual(['simple-prompt', 'args-prompt', 'completable-prompt', 'resource-prompt']);
    const simple = prompts.find(
      (p) => !(p.arguments as unknown[] | undefined)?.some((a) => (a as { required?: boolean }).required),
    )!;
    const got = await c.request('prompts/get', { name: simple.name, arguments: {} });
    expect(Array.isArray(got.messages)).toBe(true);
    await c.close();
  }, 30_000);
});

describe('faulty upstreams', () => {
  // A cut stream is a protocol error when the headers got through, an http error when they did not.
  for (const [fault, kinds] of [
    ['hang', ['timeout']],
    ['error500', ['http']],
    ['garbage', ['protocol']],
    ['cut', ['protocol', 'http']],
    ['slowsse', ['timeout']],
    // A JSON-RPC error to the handshake is the upstream's fault, not its answer to the call.
    ['refuses', ['protocol']],
  ] as [Fault, string[]][]) {
    it(`${fault}: fails with a clear ${kinds.join(' or ')} error within the timeout`, async () => {
      const server = await started(faultyServer(fault));
      const sent = Date.now();
      const err = await client(server.url, 300)
        .listPrompts()
        .catch((e) => e);
      expect(err).toBeInstanceOf(UpstreamError);
      expect(kinds, err.message).toContain(err.kind);
      expect(Date.now() - sent).toBeLessThan(300 * 3 + 200);
    });
  }
});

describe('the handshake', () => {
  it('is made once for concurrent first calls, and a refused initialize names itself', async () => {
    const server = await started(legacyServer(LEGACY));
    const c = client(server.url);
    const before = server.sessions();
    await Promise.all(Array.from({ length: 5 }, () => c.request('prompts/get', { name: 'alpha' })));
    expect(server.sessions() - before).toBe(1);
    await c.close();
    const refusing = await started(faultyServer('refuses'));
    const err = (await client(refusing.url)
      .request('prompts/get', { name: 'x' })
      .catch((e) => e)) as UpstreamError;
    expect([err.kind, err.fault, err.message]).toEqual([
      'protocol',
      'protocol',
      'initialize refused (JSON-RPC -32602)',
    ]);
  });
});

describe('the negotiated revision', () => {
  it('is sent on the DELETE that ends the session, like every request after initialize', async () => {
    const server = await started(versionServer('2025-06-18'));
    const c = client(server.url);
    expect((await c.listPrompts()).map((p) => p.name)).toEqual(['one']);
    await c.close();
    expect(server.deletes.map((h) => [h['mcp-session-id'], h['mcp-protocol-version']])).toEqual([
      ['v-1', '2025-06-18'],
    ]);
  });
  it('a call on a closed client ends its own session within the call’s deadline, even when the DELETE hangs', async () => {
    // The answer takes 600 ms of the call's 1,000; the DELETE after it is never answered.
    const server = await started(versionServer('2025-11-25', { hangOnDelete: true, replyMs: 600 }));
    const c = client(server.url, 1000);
    await c.close();
    const sent = Date.now();
    // A call that outlived its client's close runs on a session of its own, ended right after.
    expect(await c.request('prompts/list')).toEqual({ prompts: [{ name: 'one' }] });
    // Within its deadline, not its deadline plus the DELETE's own timeout (1,600 ms).
    expect(Date.now() - sent).toBeLessThan(1300);
    expect(server.deletes.map((h) => h['mcp-session-id'])).toEqual(['v-1']);
  });
  it('one this gateway does not speak is a protocol fault, and the session it opened is ended', async () => {
    const server = await started(versionServer('2099-01-01'));
    const err = (await client(server.url)
      .listPrompts()
      .catch((e) => e)) as UpstreamError;
    expect([err.kind, err.fault]).toEqual(['protocol', 'protocol']);
    expect(err.message).toMatch(/"2099-01-01"/);
    await soon(() => server.deletes.length > 0);
    expect(server.deletes.map((h) => h['mcp-session-id'])).toEqual(['v-1']);
  });
  it("one that echoes a credential sent to it is cut from the handshake's error, for capabilities and listen too", async () => {
    // An upstream settling on what it was sent (a proxy's echo): the handshake quotes the revision.
    const key = 'key-0123456789abcdef';
    const server = await started(versionServer(key));
    const c = new UpstreamClient({
      url: new URL(server.url),
      headers: { 'x-api-key': key },
      timeoutMs: 2000,
      clientInfo,
    });
    const failures = [
      await c.capabilities().catch((e: unknown) => e),
      await c.listen(() => undefined, new AbortController().signal).catch((e: unknown) => e),
      await c.request('prompts/list').catch((e: unknown) => e),
    ] as UpstreamError[];
    for (const err of failures) {
      expect(err).toBeInstanceOf(UpstreamError);
      expect(err.message).toBe('upstream negotiated protocol version "[redacted]", which this gateway does not speak');
    }
    await c.close();
  });
});

describe("the upstream's own requests", () => {
  it('a ping under the id of our request is not taken for our reply, and is answered in the session', async () => {
    const server = await started(pingingServer());
    const c = client(server.url);
    expect((await c.listPrompts()).map((p) => p.name)).toEqual(['one']);
    await soon(() => server.pongs.length > 0);
    await c.close();
    expect(server.pongs).toEqual([{ jsonrpc: '2.0', id: expect.any(Number), result: {}, session: 'p-1' }]);
  });
  it('pings in one reply are answered up to a bound: a reply full of them does not fan out a POST each', async () => {
    const server = await started(pingingServer(200));
    const c = client(server.url);
    expect((await c.listPrompts()).map((p) => p.name)).toEqual(['one']);
    await soon(() => server.pongs.length >= MAX_PONGS_PER_REPLY);
    await new Promise((r) => setTimeout(r, 200));
    await c.close();
    expect(server.pongs).toHaveLength(MAX_PONGS_PER_REPLY);
  });
  it('a ping on its session stream is answered, in that session', async () => {
    const server = await started(pingingServer());
    const c = client(server.url);
    const stop = new AbortController();
    const listening = c.listen(() => undefined, stop.signal);
    await soon(() => server.pongs.length > 0);
    stop.abort();
    await listening;
    await c.close();
    expect(server.pongs).toEqual([{ jsonrpc: '2.0', id: 'srv-1', result: {}, session: 'p-1' }]);
  });
  it('a session stream flooded with pings is answered once per interval, not with a POST each', async () => {
    const server = await started(pingingServer(1, 500));
    const c = client(server.url);
    const stop = new AbortController();
    const listening = c.listen(() => undefined, stop.signal);
    await soon(() => server.pongs.length > 0);
    await new Promise((r) => setTimeout(r, 200));
    stop.abort();
    await listening;
    await c.close();
    // All 500 arrive within one PONG_INTERVAL_MS: the first is answered, the rest are not.
    expect(server.pongs).toEqual([{ jsonrpc: '2.0', id: 'srv-1', result: {}, session: 'p-1' }]);
  });
});

describe('an SSE reply closed before its response (2025-11-25 polling)', () => {
  it('is resumed with GET and Last-Event-ID, in its session and revision', async () => {
    const server = await started(pollingServer());
    const c = client(server.url);
    expect((await c.listPrompts()).map((p) => p.name)).toEqual(['polled']);
    await c.close();
    expect(server.gets.length).toBeGreaterThanOrEqual(1);
    const get = server.gets[0]!;
    expect([get['last-event-id'], get['mcp-session-id'], get['mcp-protocol-version'], get.accept]).toEqual([
      expect.stringMatching(/^prime-/),
      'poll-1',
      '2025-11-25',
      'text/event-stream',
    ]);
  });
  it('is held to one byte cap across its streams, not one per stream', async () => {
    // Two streams of 3 MiB each: under the 4 MiB cap apiece, over it together.
    const server = await started(pollingServer(3 * 1_048_576));
    const err = (await client(server.url, 10_000)
      .listPrompts()
      .catch((e) => e)) as UpstreamError;
    expect(err.fault).toBe('too_large');
  });
});

describe('a request the client stops waiting for', () => {
  it('is cancelled in its session when its timeout passes', async () => {
    const server = await started(hangingServer());
    const c = client(server.url, 400);
    const err = (await c.request('prompts/get', { name: 'slow' }).catch((e) => e)) as UpstreamError;
    expect(err.kind).toBe('timeout');
    await soon(() => server.cancelled.length > 0);
    await c.close();
    expect(server.cancelled).toEqual([
      { params: { requestId: expect.any(Number), reason: expect.stringMatching(/within 400 ms/) }, session: 'h-1' },
    ]);
  });
});

describe('a listing of many pages', () => {
  /** `prompt(n)` for the n-th prompt listed; 10 a page, a nextCursor on all but the 100th. */
  const paged = (prompt: (n: number) => Record<string, unknown>) =>
    pagedUpstream((_method, params) => {
      const page = Number(params.cursor ?? 0);
      const prompts = Array.from({ length: 10 }, (_, i) => prompt(page * 10 + i));
      return page < 99 ? { prompts, nextCursor: String(page + 1) } : { prompts };
    });
  const jsonBytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

  it('keeps each prompt cut to what can be published, not the pages: 1,000 prompts of 20 KB descriptions', async () => {
    // Each page is far under the reply cap; the pages together (19 MiB) were all kept until the last.
    const long = 'x'.repeat(20_000);
    const { client: c, asked } = paged((n) => ({ name: `p${n}`, description: long, _meta: { dropped: true } }));
    const prompts = await c.listPrompts();
    expect(asked).toHaveLength(100);
    expect(prompts).toHaveLength(1000);
    expect(prompts[999]).toEqual({ name: 'p999', description: 'x'.repeat(4000) });
    expect(jsonBytes(prompts)).toBeLessThan(MAX_LISTED_BYTES);
  });

  it('stops reading pages once the cut entries pass MAX_LISTED_BYTES, keeping those before', async () => {
    const arg = (i: number) => ({ name: `a${i}`, description: 'y'.repeat(5000) });
    const prompt = (n: number) => ({ name: `p${n}`, arguments: Array.from({ length: 8 }, (_, i) => arg(i)) });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const { client: c, asked } = paged(prompt);
      const prompts = await c.listPrompts();
      const kept = prompts.length;
      expect(prompts.map((p) => p.name)).toEqual(Array.from({ length: kept }, (_, n) => `p${n}`));
      const bytes = prompts.reduce((sum, p) => sum + jsonBytes(p), 0);
      expect(bytes).toBeLessThanOrEqual(MAX_LISTED_BYTES);
      expect(bytes + jsonBytes(cutListed(prompt(kept)))).toBeGreaterThan(MAX_LISTED_BYTES);
      // The page that passed the bound was the last one asked for.
      expect(asked).toHaveLength(Math.floor(kept / 10) + 1);
      expect(warn.mock.calls.map(([line]) => JSON.parse(String(line)).msg)).toContain(
        'upstream prompts listing cut past its byte bound',
      );
    } finally {
      warn.mockRestore();
    }
  });
});

describe('an SSE line ending split across chunks', () => {
  const stream = (chunks: string[]) =>
    new ReadableStream<Uint8Array>({
      start(ctl) {
        for (const s of chunks) ctl.enqueue(new TextEncoder().encode(s));
        ctl.close();
      },
    });
  const events = async (chunks: string[]) => {
    const out = [];
    for await (const ev of readSse(stream(chunks))) out.push(ev.data);
    return out;
  };

  it('a CR ending one chunk and an LF starting the next are one line ending', async () => {
    expect(await events(['data: {"jsonrpc":"2.0",\r', '\ndata: "id":1,"result":{}}\r\n\r\n'])).toEqual([
      '{"jsonrpc":"2.0",\n"id":1,"result":{}}',
    ]);
    expect(await events(['data: a\r', '\n\r', '\n'])).toEqual(['a']);
  });

  it('a CR ending a chunk followed by anything else, or ending the stream, still ends its line', async () => {
    expect(await events(['data: a\r', 'data: b\r\r'])).toEqual(['a\nb']);
    expect(await events(['data: a\r', '\r'])).toEqual(['a']);
    // An event that no blank line ends is not dispatched, at the end of the stream as anywhere.
    expect(await events(['data: a\r'])).toEqual([]);
  });

  it('a reply whose CRLF is split is read as one reply', async () => {
    const { client: c } = pagedUpstream((_method, _params, id) => {
      const chunks = [
        `data: {"jsonrpc":"2.0","id":${JSON.stringify(id)},\r`,
        '\ndata: "result":{"prompts":[{"name":"split"}]}}\r\n\r\n',
      ];
      return new Response(stream(chunks), { headers: { 'content-type': 'text/event-stream' } });
    });
    expect((await c.listPrompts()).map((p) => p.name)).toEqual(['split']);
  });
});
