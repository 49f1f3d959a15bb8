/**
 * The 2026-07-28 era at /mcp, through the real Worker, KV and Durable
 * Objects: discover, the envelope and header checks (every mismatch and
 * version case), stateless serving, cache hints, and listen streams fed by
 * the same fan-out as the legacy GET streams.
 */
import { createExecutionContext, env, runInDurableObject, SELF, waitOnExecutionContext } from 'cloudflare:test';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import worker from '../../src/index.js';
import { catalogWriter } from '../../src/catalog/stubs.js';
import { shardStub } from '../../src/session/fanout.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { flushFeed, holdFeed, waitFor } from '../helpers/feed.js';
import {
  endListeners,
  notificationsUntilEnd,
  openListener,
  settleListeners,
  useListenClock,
} from '../helpers/listen.js';
import { envelope, MODERN, modernPost } from '../helpers/protocol.js';
import {
  expectError,
  MCP_URL,
  openSession,
  openStream,
  post,
  publish,
  readEvents,
  request,
} from '../helpers/worker.js';

const V = MODERN;

/** A modern request with the standard headers derived from the body, unless overridden (null drops one). */
function modern(method: string, params: Record<string, unknown> = {}, headers: Record<string, string | null> = {}) {
  const body = request(method, { ...params, _meta: envelope((params._meta as Record<string, unknown>) ?? {}) });
  const h: Record<string, string | null> = { 'mcp-protocol-version': V, 'mcp-method': method, ...headers };
  if (typeof params.name === 'string' && !('mcp-name' in headers)) h['mcp-name'] = params.name;
  const sent = Object.fromEntries(Object.entries(h).filter((e): e is [string, string] => e[1] !== null));
  return { body, response: post(body, { headers: sent }) };
}

async function expectErrorWithId(res: Response, status: number, code: number, id: unknown) {
  const text = await res.clone().text();
  const err = await expectError(res, status, code);
  expect(JSON.parse(text).id, text).toBe(id);
  return err;
}

async function result(method: string, params: Record<string, unknown> = {}) {
  const res = await modern(method, params).response;
  expect(res.status).toBe(200);
  const body = (await res.json()) as any;
  if (body.error) throw new Error(JSON.stringify(body.error));
  return { res, result: body.result };
}

beforeAll(async () => {
  await publish(FIXTURE_PROMPTS);
  await flushFeed();
});

/** A modern request to the Worker in this isolate (where the test controls the clock); its result. */
async function direct(method: string, params: Record<string, unknown>): Promise<any> {
  const res = await worker.fetch(new Request(MCP_URL, modernPost(method, params).init), env, createExecutionContext());
  const json = (await res.json()) as any;
  if (!json.result) throw new Error(JSON.stringify(json));
  return json.result;
}

describe('server/discover', () => {
  it('offers both eras, capabilities, cache hints and serverInfo in _meta', async () => {
    const { res, result: r } = await result('server/discover');
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(r.resultType).toBe('complete');
    expect(r.supportedVersions).toEqual([V, '2025-11-25', '2025-06-18', '2025-03-26']);
    // Skills are on by default (SKILLS): the extension, and resources for its files; the tools mirror is off.
    expect(r.capabilities).toEqual({
      prompts: { listChanged: true },
      completions: {},
      resources: { listChanged: true },
      extensions: { 'io.modelcontextprotocol/skills': {} },
    });
    expect(r.ttlMs).toBe(60_000);
    expect(r.cacheScope).toBe('public');
    expect(r._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({
      name: 'promptgate',
      title: 'promptgate',
      websiteUrl: expect.any(String),
    });
  });
});

describe('stateless prompts', () => {
  it('lists with resultType, ttlMs, cacheScope and serverInfo, and pages with the cursor', async () => {
    const { result: first } = await result('prompts/list');
    expect(first.resultType).toBe('complete');
    expect(first.ttlMs).toBe(60_000);
    expect(first.cacheScope).toBe('public');
    // Results carry the short serverInfo; discover has the whole Implementation.
    expect(Object.keys(first._meta['io.modelcontextprotocol/serverInfo'])).toEqual(['name', 'version']);
    expect(first.prompts.map((p: any) => p.name)).toEqual(['alpha', 'embedded', 'greet']);
    expect(first.prompts[2].icons).toEqual([{ src: 'https://example.com/icon.png', mimeType: 'image/png' }]);
    const { result: second } = await result('prompts/list', { cursor: first.nextCursor });
    expect(second.cacheScope).toBe('public');
    expect(second.prompts.map((p: any) => p.name)).toEqual(['linky', 'many', 'picture']);
  });
  it('gets and completes without any session, and ignores Mcp-Session-Id', async () => {
    const { result: got } = await result('prompts/get', { name: 'greet', arguments: { who: 'Ada' } });
    expect(got.resultType).toBe('complete');
    expect(got.messages[0].content.text).toContain('Ada');
    const { result: done } = await result('completion/complete', {
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'who', value: 'al' },
    });
    expect(done.completion.values.slice(0, 2)).toEqual(['alice', 'alfred']);
    const { response } = modern('prompts/list', {}, { 'mcp-session-id': 'not-a-session' });
    expect((await response).status).toBe(200);
  });
  it('keeps method errors in-band (200): unknown prompt and missing argument are -32602', async () => {
    const unknown = await modern('prompts/get', { name: 'nope' }).response;
    expect(unknown.status).toBe(200);
    expect(((await unknown.json()) as any).error.code).toBe(-32602);
    const missing = await modern('prompts/get', { name: 'greet' }).response;
    expect(((await missing.json()) as any).error.code).toBe(-32602);
  });
  it('answers a client notification with 202', async () => {
    const res = await post(
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: envelope() } },
      { headers: { 'mcp-protocol-version': V, 'mcp-method': 'notifications/cancelled' } },
    );
    expect(res.status).toBe(202);
  });
});

describe('envelope, version and header errors', () => {
  it('400 -32602 when a required _meta key is missing', async () => {
    const noCaps = request('prompts/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': V } });
    const err = await expectError(
      await post(noCaps, { headers: { 'mcp-protocol-version': V, 'mcp-method': 'prompts/list' } }),
      400,
      -32602,
    );
    expect(err.message).toContain('clientCapabilities');
    const badVersion = request('prompts/list', {
      _meta: { 'io.modelcontextprotocol/protocolVersion': 7, 'io.modelcontextprotocol/clientCapabilities': {} },
    });
    await expectError(await post(badVersion, { headers: { 'mcp-method': 'prompts/list' } }), 400, -32602);
  });
  it('400 -32602 naming the missing envelope keys when a modern MCP-Protocol-Version header comes with no envelope claim (id echoed)', async () => {
    const headers = { 'mcp-protocol-version': ` ${V}\t`, 'mcp-method': 'server/discover' };
    const noMeta = request('server/discover', {});
    let err = await expectErrorWithId(await post(noMeta, { headers }), 400, -32602, noMeta.id);
    expect(err.data).toEqual({ envelope: { missing: ['_meta'] } });
    const noParams = request('server/discover');
    err = await expectErrorWithId(await post(noParams, { headers }), 400, -32602, noParams.id);
    expect(err.message).toContain('_meta');
    const noVersion = request('server/discover', { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } });
    err = await expectErrorWithId(await post(noVersion, { headers }), 400, -32602, noVersion.id);
    expect(err.data).toEqual({ envelope: { missing: ['io.modelcontextprotocol/protocolVersion'] } });
  });
  it('400 -32020 for initialize sent with a modern MCP-Protocol-Version header; 202 for a notification with one', async () => {
    const init = request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'x', version: '1' },
    });
    const err = await expectErrorWithId(
      await post(init, { headers: { 'mcp-protocol-version': V } }),
      400,
      -32020,
      init.id,
    );
    expect(err.data.mismatch.header).toBe('MCP-Protocol-Version');
    const note = await post(
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      { headers: { 'mcp-protocol-version': V } },
    );
    expect(note.status).toBe(202);
  });
  it('400 -32022 with data.supported for an unsupported version', async () => {
    const body = request('prompts/list', {
      _meta: envelope({ 'io.modelcontextprotocol/protocolVersion': '2027-01-01' }),
    });
    const err = await expectError(
      await post(body, { headers: { 'mcp-protocol-version': '2027-01-01', 'mcp-method': 'prompts/list' } }),
      400,
      -32022,
    );
    // Every version the server speaks, as server/discover lists them: the legacy ones too.
    expect(err.data).toEqual({ supported: [V, '2025-11-25', '2025-06-18', '2025-03-26'], requested: '2027-01-01' });
  });
  it("a request wrong in several ways gets the SDK's answer: the envelope, then the versions, then Mcp-Method, then the revision", async () => {
    // A version mismatch and no capabilities: the envelope is checked first (-32602).
    const noCaps = request('prompts/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': V } });
    const headers = { 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'prompts/list' };
    await expectErrorWithId(await post(noCaps, { headers }), 400, -32602, noCaps.id);
    // An unsupported revision and another method in Mcp-Method: the method header is checked first (-32020).
    const later = request('prompts/list', {
      _meta: envelope({ 'io.modelcontextprotocol/protocolVersion': '2027-01-01' }),
    });
    const err = await expectErrorWithId(
      await post(later, { headers: { 'mcp-protocol-version': '2027-01-01', 'mcp-method': 'prompts/get' } }),
      400,
      -32020,
      later.id,
    );
    expect(err.data.mismatch.header).toBe('Mcp-Method');
  });
  it('400 -32020 when MCP-Protocol-Version is missing or differs from the body', async () => {
    await expectError(await modern('prompts/list', {}, { 'mcp-protocol-version': null }).response, 400, -32020);
    const err = await expectError(
      await modern('prompts/list', {}, { 'mcp-protocol-version': '2025-11-25' }).response,
      400,
      -32020,
    );
    expect(err.data.mismatch.header).toBe('MCP-Protocol-Version');
  });
  it('400 -32020 when Mcp-Method is missing or names another method', async () => {
    await expectError(await modern('prompts/list', {}, { 'mcp-method': null }).response, 400, -32020);
    const err = await expectError(
      await modern('prompts/list', {}, { 'mcp-method': 'prompts/get' }).response,
      400,
      -32020,
    );
    expect(err.data.mismatch.header).toBe('Mcp-Method');
  });
  it('400 -32020 when Mcp-Name is missing, differs, or carries a bad base64 sentinel', async () => {
    await expectError(
      await modern('prompts/get', { name: 'greet', arguments: { who: 'x' } }, { 'mcp-name': null }).response,
      400,
      -32020,
    );
    await expectError(
      await modern('prompts/get', { name: 'greet', arguments: { who: 'x' } }, { 'mcp-name': 'linky' }).response,
      400,
      -32020,
    );
    await expectError(
      await modern('prompts/get', { name: 'greet', arguments: { who: 'x' } }, { 'mcp-name': '=?base64?!!!?=' })
        .response,
      400,
      -32020,
    );
  });
  it('400 -32020 for a header that matches the body only once Unicode spaces or controls are stripped', async () => {
    const get = { name: 'greet', arguments: { who: 'x' } };
    const cases: [string, Record<string, string>][] = [
      ['Mcp-Name', { 'mcp-name': 'greet\u00a0' }],
      ['Mcp-Name', { 'mcp-name': 'greet\u3000' }],
      ['Mcp-Name', { 'mcp-name': '\ufeffgreet' }],
      ['Mcp-Name', { 'mcp-name': 'greet\u000b' }],
      ['Mcp-Method', { 'mcp-method': 'prompts/get\u00a0' }],
      ['MCP-Protocol-Version', { 'mcp-protocol-version': `${V}\u00a0` }],
    ];
    for (const [header, headers] of cases) {
      const { body, response } = modern('prompts/get', get, headers);
      const err = await expectErrorWithId(await response, 400, -32020, body.id);
      expect(err.data.mismatch.header, JSON.stringify(headers)).toBe(header);
    }
    // Spaces and tabs around a value are HTTP's, not the value's.
    const padded = await modern('prompts/get', get, { 'mcp-name': ' greet\t' }).response;
    expect(padded.status).toBe(200);
  });
  it("a body name that is not a string is the method's -32602 whatever Mcp-Name says: the header is checked against strings only", async () => {
    for (const params of [{ name: 42 }, {}]) {
      const { body, response } = modern('prompts/get', params, { 'mcp-name': 'x' });
      const res = await response;
      expect(res.status).toBe(200);
      const reply = (await res.json()) as any;
      expect(reply.id).toBe(body.id);
      expect(reply.error.code).toBe(-32602);
    }
  });
  it('takes an Mcp-Name that only starts like the sentinel (no closing ?=) literally', async () => {
    // Matching the body literally: the request is checked and answered by the method (an unknown prompt).
    const literal = '=?base64?abc';
    const res = await modern('prompts/get', { name: literal }, { 'mcp-name': literal }).response;
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).error.code).toBe(-32602);
    // Not matching it: the mismatch, as for any other literal value.
    await expectError(await modern('prompts/get', { name: 'greet' }, { 'mcp-name': literal }).response, 400, -32020);
  });
  it('accepts Mcp-Name as a base64 sentinel that decodes to the body name', async () => {
    const sentinel = `=?base64?${btoa('greet')}?=`;
    const res = await modern('prompts/get', { name: 'greet', arguments: { who: 'x' } }, { 'mcp-name': sentinel })
      .response;
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).result.messages).toHaveLength(1);
  });
  it('404 -32601 for methods the modern era does not have (ping, logging/setLevel, initialize, unknown)', async () => {
    for (const m of ['ping', 'logging/setLevel', 'tools/list', 'initialize']) {
      await expectError(await modern(m).response, 404, -32601);
    }
  });
  it('400 -32600 for a batch of modern messages', async () => {
    const one = modern('prompts/list').body;
    await expectError(
      await post([one], { headers: { 'mcp-protocol-version': V, 'mcp-method': 'prompts/list' } }),
      400,
      -32600,
    );
  });
  it('legacy clients keep working at the same endpoint', async () => {
    const s = await openSession('2025-11-25');
    const r = await s.call('prompts/list');
    expect(r.body.result.prompts.map((p: any) => p.name)).toEqual(['alpha', 'embedded', 'greet']);
    expect(r.body.result.ttlMs).toBeUndefined();
    expect(r.body.result.resultType).toBeUndefined();
  });
});

function listen(notifications: Record<string, unknown>) {
  const body = request('subscriptions/listen', { notifications, _meta: envelope() });
  return {
    id: body.id,
    response: post(body, { headers: { 'mcp-protocol-version': V, 'mcp-method': 'subscriptions/listen' } }),
  };
}

describe('subscriptions/listen', () => {
  it('acknowledges the honored subset first, with SSE headers and no session', async () => {
    const { id, response } = listen({ promptsListChanged: true, toolsListChanged: true });
    const res = await response;
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const stream = readEvents(res);
    const ack = await stream.nextMessage();
    expect(ack.message).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { promptsListChanged: true }, _meta: { 'io.modelcontextprotocol/subscriptionId': id } },
    });
    await stream.close();
  });
  it('is held by a registry shard as a hibernatable WebSocket (an idle stream keeps no object awake)', async () => {
    const count = async () => {
      let n = 0;
      for (let i = 0; i < 4; i++)
        n += await runInDurableObject(shardStub(env, i), (_o, state) => state.getWebSockets('listener').length);
      return n;
    };
    // Streams closed by earlier tests are noticed at their next keepalive: wait until they are gone.
    await waitFor(async () => (await count()) === 0, 'earlier listen streams left their shards');
    const before = await count();
    const stream = readEvents(await listen({ promptsListChanged: true }).response);
    await stream.nextMessage();
    // getWebSockets lists only sockets accepted with the Hibernation API (ctx.acceptWebSocket).
    expect(await count()).toBe(before + 1);
    await stream.close();
    await waitFor(async () => (await count()) === before, 'a closed stream leaves its shard');
  });
  it('sends keepalive comments: one per SSE_KEEPALIVE_MS, on the stream', async () => {
    // The Worker's interval runs on the test's clock (the Worker is called in this isolate): each
    // interval is advanced by the test, then its comment is read within a bounded read (no sleep).
    // A missing keepalive shows up in the assertion as the read's timeout, not as a hang.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const { stream } = await openListener();
      const frames: unknown[] = [];
      for (let i = 0; i < 3; i++) {
        vi.advanceTimersByTime(300);
        frames.push(await stream.next(5_000).catch((e: Error) => ({ error: e.message })));
      }
      expect(frames).toEqual([{ comment: 'keepalive' }, { comment: 'keepalive' }, { comment: 'keepalive' }]);
      await stream.close();
    } finally {
      vi.useRealTimers();
    }
  });
  it('one change reaches listen streams and legacy GET streams alike, tagged, once each', async () => {
    useListenClock();
    try {
      const listeners = [await openListener(), await openListener()];
      const session = await openSession();
      const legacy = await openStream(session);
      // Through the real coalescing window: wait for the events, however long the machine takes.
      await publish(FIXTURE_PROMPTS);
      for (const l of listeners) {
        const n = await l.stream.nextMessage();
        expect(n.message).toEqual({
          jsonrpc: '2.0',
          method: 'notifications/prompts/list_changed',
          params: { _meta: { 'io.modelcontextprotocol/subscriptionId': l.id } },
        });
      }
      expect((await legacy.nextMessage()).message.method).toBe('notifications/prompts/list_changed');
      // Exactly once: every fan-out done and handled by each stream, then each stream ends after all it got.
      await flushFeed();
      await settleListeners(listeners.length);
      endListeners();
      for (const l of listeners) expect(await notificationsUntilEnd(l)).toEqual([]);
      await SELF.fetch(MCP_URL, { method: 'DELETE', headers: { 'mcp-session-id': session.id } });
      expect(await legacy.rest()).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });
  it('does not announce the change the client already listed, even if its fan-out is still under way', async () => {
    useListenClock();
    try {
      // The window stays open until the test closes it: this change is announced only after the listen below connects.
      await holdFeed();
      await publish(FIXTURE_PROMPTS);
      // The client gets from the isolate it listens to, once that isolate serves the new generation
      // (publish() stamps a revision into the last fixture's text).
      const stamp = (await catalogWriter(env).get('many')).prompt!.record.messages.at(-1)!.content;
      await waitFor(
        async () =>
          JSON.stringify(
            (await direct('prompts/get', { name: 'many', arguments: { n: 'v000' } })).messages.at(-1).content,
          ) === JSON.stringify(stamp),
        'the listening isolate serves the published generation',
      );
      const l = await openListener();
      await flushFeed();
      await settleListeners(1);
      await publish(FIXTURE_PROMPTS);
      await flushFeed();
      const n = await l.stream.nextMessage();
      expect(n.message.params._meta['io.modelcontextprotocol/subscriptionId']).toBe(l.id);
      await settleListeners(1);
      endListeners();
      // Nothing for the generation already listed, before or after the one it had not seen.
      expect(await notificationsUntilEnd(l), 'no list_changed for the generation already listed').toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });
  it('acknowledges and ends at once when nothing requested can be honored', async () => {
    const { id, response } = listen({ toolsListChanged: true });
    const stream = readEvents(await response);
    expect((await stream.nextMessage()).message.params.notifications).toEqual({});
    const end = await stream.nextMessage();
    expect(end.message).toMatchObject({
      id,
      result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': id } },
    });
    expect(await stream.ended()).toBe(true);
  });
  it('closes after LISTEN_MAX_MS without the listen result, so the client listens again', async () => {
    const short = { ...env, LISTEN_MAX_MS: '400' } as unknown as Env;
    const { init } = modernPost('subscriptions/listen', { notifications: { promptsListChanged: true } });
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request(MCP_URL, init), short, ctx);
    const stream = readEvents(res);
    await stream.nextMessage();
    // The result would say the subscription ended for good; a routine close must read as a drop.
    expect(await stream.rest()).toEqual([]);
    expect(await stream.ended()).toBe(true);
    await waitOnExecutionContext(ctx);
  });
  it('needs params.notifications (-32602, in-band)', async () => {
    const res = await listen(undefined as never).response;
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).error.code).toBe(-32602);
  });
});

describe('CORS for modern headers', () => {
  it('lets browsers send Mcp-Method and Mcp-Name', async () => {
    const res = await SELF.fetch(MCP_URL, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:6274',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'mcp-method, mcp-name',
      },
    });
    const allowed = res.headers.get('access-control-allow-headers') ?? '';
    expect(allowed).toContain('mcp-method');
    expect(allowed).toContain('mcp-name');
  });
});
