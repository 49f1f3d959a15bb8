/**
 * The tools mirror (docs/tools-mirror.md) through the real Worker, KV and Durable Objects, in both
 * eras: off by default (no capability, unknown methods), on through the env (TOOLS_MIRROR,
 * TOOLS_MIRROR_TAGS), listing every visible prompt as prompts/list pages them, rendering exactly
 * what prompts/get renders, refusing what prompts/get refuses, and announcing its list changes on
 * legacy GET streams and modern listen streams next to prompts (and skill resources).
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { catalogWriter } from '../../src/catalog/stubs.js';
import { readGeneration } from '../../src/catalog/store.js';
import type { PromptRecord } from '../../src/catalog/types.js';
import { forgetUpstreamConfig, UPSTREAMS_KEY } from '../../src/catalog/upstreams/config.js';
import { reported } from '../../src/catalog/upstreams/report.js';
import worker from '../../src/index.js';
import type { Principal } from '../../src/lib/scope.js';
import { modernPost as modernEntry } from '../../src/rpc/modern.js';
import { feedStatus, publishChange } from '../../src/session/fanout.js';
import { flushFeed } from '../helpers/feed.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { serveCurrentCatalog } from '../helpers/listen.js';
import { principal, scope } from '../helpers/principals.js';
import { modernPost, openSessionWith, postInit, request, streamHeaders } from '../helpers/protocol.js';
import { MCP_URL, publish, readEvents, type EventStream } from '../helpers/worker.js';

/** The test env with some vars changed: a new env object is a new configuration (lib/config.ts). */
const withVars = (e: Env, vars: Record<string, string>): Env => ({ ...e, ...vars });
const ON = withVars(env, { TOOLS_MIRROR: 'on' });
const TAGGED = withVars(env, { TOOLS_MIRROR: 'on', TOOLS_MIRROR_TAGS: 'docs, ops' });

const tagged = (name: string, tags: string[]): PromptRecord => ({
  ...FIXTURE_PROMPTS.find((p) => p.name === name)!,
  tags,
});
const RECORDS: PromptRecord[] = [
  ...FIXTURE_PROMPTS.filter((p) => p.name !== 'greet' && p.name !== 'picture'),
  tagged('greet', ['docs']),
  tagged('picture', ['ops', 'misc']),
  { name: 'optout', tool: false, tags: ['docs'], messages: [{ role: 'user', content: { type: 'text', text: 'no' } }] },
  { name: 'team-eng', groups: ['eng'], messages: [{ role: 'user', content: { type: 'text', text: 'eng only' } }] },
  { name: 'zz-last', messages: [{ role: 'user', content: { type: 'text', text: 'last' } }] },
];

const alice = principal('oauth:idp#alice', ['eng']);
const bob = principal('oauth:idp#bob', ['ops']);

async function send(e: Env, init: RequestInit): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(MCP_URL, init), e, ctx);
  if (res.headers.get('content-type')?.includes('text/event-stream')) return res;
  const body = await res.text();
  await waitOnExecutionContext(ctx);
  return new Response(body, res);
}

/** A legacy session on a gateway with this env. */
async function legacy(e: Env, version = '2025-11-25') {
  const s = await openSessionWith((_u, i) => send(e, i!), MCP_URL, version);
  return {
    ...s,
    async call(method: string, params?: Record<string, unknown>): Promise<any> {
      return (await send(e, postInit(request(method, params), { session: s.id, version: s.version }))).json();
    },
    async stream(lastEventId?: string): Promise<EventStream> {
      return readEvents(await send(e, { headers: streamHeaders(s.id, s.version, lastEventId) }));
    },
  };
}

/** One modern request on a gateway with this env: HTTP status and body. */
async function modern(
  e: Env,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  const { init } = modernPost(method, params);
  const res = await send(e, { ...init, headers: { ...(init.headers as Record<string, string>), ...headers } });
  return { status: res.status, body: (await res.json()) as any };
}

/** A modern request as a principal (access control sets one; here it is set by hand, test/helpers/principals.ts). */
async function as(p: Principal | undefined, e: Env, method: string, params: Record<string, unknown>): Promise<any> {
  const { body, init } = modernPost(method, params);
  const res = await modernEntry(scope(p, { env: e, headers: init.headers as Record<string, string> }), body);
  return res.json();
}

/** Every page of a list, following its cursors (bounded). */
async function all(list: (cursor?: string) => Promise<any>, field: string): Promise<{ items: any[]; pages: any[] }> {
  const pages: any[] = [];
  let cursor: string | undefined;
  do {
    const r = await list(cursor);
    pages.push(r);
    cursor = r.nextCursor;
  } while (cursor && pages.length < 20);
  return { items: pages.flatMap((p) => p[field]), pages };
}

const legacyList = (s: Awaited<ReturnType<typeof legacy>>, method: string) => async (cursor?: string) =>
  (await s.call(method, cursor === undefined ? {} : { cursor })).result;
const modernList = (e: Env, method: string) => async (cursor?: string) =>
  (await modern(e, method, cursor === undefined ? {} : { cursor })).body.result;

const UPSTREAM = { id: 'gh', url: 'https://gh.example/mcp', prefix: 'gh' };

beforeAll(async () => {
  await publish(RECORDS);
  await env.PROMPTS.put(UPSTREAMS_KEY, JSON.stringify([UPSTREAM]));
  forgetUpstreamConfig(env);
  const config = { ...UPSTREAM, url: new URL(UPSTREAM.url), timeoutMs: 1000, enabled: true, headers: {}, allow: null };
  const report = reported({ ...config, deny: [], aliases: {} }, '.', {
    prompts: [{ name: 'review', description: 'Reviews a PR', arguments: [{ name: 'pr', required: true }] }],
  });
  await catalogWriter(env).upstreamsReported([report]);
});

afterAll(async () => {
  await env.PROMPTS.delete(UPSTREAMS_KEY);
  forgetUpstreamConfig(env);
  await catalogWriter(env).reconcileUpstreams();
});

describe('mirror off (the default)', () => {
  it('declares no tools, and tools/* are unknown methods in both eras', async () => {
    const s = await legacy(env);
    expect(s.result.capabilities.tools).toBeUndefined();
    for (const method of ['tools/list', 'tools/call'])
      expect((await s.call(method, { name: 'greet' })).error).toMatchObject({ code: -32601 });
    const discover = await modern(env, 'server/discover');
    expect(discover.body.result.capabilities.tools).toBeUndefined();
    for (const method of ['tools/list', 'tools/call']) {
      const r = await modern(env, method, method === 'tools/call' ? { name: 'greet' } : {});
      expect(r.status).toBe(404);
      expect(r.body.error).toMatchObject({ code: -32601 });
    }
  });
});

describe('tools/list', () => {
  it('declares tools with listChanged in both eras', async () => {
    expect((await legacy(ON)).result.capabilities.tools).toEqual({ listChanged: true });
    expect((await modern(ON, 'server/discover')).body.result.capabilities.tools).toEqual({ listChanged: true });
  });

  it('mirrors every visible prompt, local and upstream, paginated like prompts/list (both eras)', async () => {
    const s = await legacy(ON);
    const prompts = await all(legacyList(s, 'prompts/list'), 'prompts');
    const tools = await all(legacyList(s, 'tools/list'), 'tools');
    const expected = prompts.items.map((p) => p.name).filter((n) => n !== 'optout');
    expect(expected).toContain('gh.review');
    expect(expected).not.toContain('team-eng');
    expect(tools.items.map((t) => t.name)).toEqual(expected);
    // PAGE_SIZE 3 (vitest.config.ts): the same page boundaries as prompts.
    expect(tools.pages.map((p) => p.tools.length)).toEqual(
      Array.from({ length: Math.ceil(expected.length / 3) }, (_, i) => Math.min(3, expected.length - 3 * i)),
    );
    const m = await all(modernList(ON, 'tools/list'), 'tools');
    expect(m.items.map((t) => t.name)).toEqual(expected);
  });

  it('describes a tool per revision: schema from the arguments, annotations, title and icons when known', async () => {
    const find = async (version: string, name: string) =>
      (await all(legacyList(await legacy(ON, version), 'tools/list'), 'tools')).items.find((t) => t.name === name);
    const greet = await find('2025-11-25', 'greet');
    expect(greet).toEqual({
      name: 'greet',
      title: 'Greeting',
      description: expect.stringMatching(
        /^Says hello\n\nReturns this prompt, rendered: the user's chosen instructions/,
      ),
      inputSchema: {
        type: 'object',
        properties: {
          who: {
            type: 'string',
            title: 'Who',
            description: 'Person to greet',
            enum: ['alice', 'bob', 'alfred', 'carol'],
          },
          tone: { type: 'string', enum: ['formal', 'casual'] },
        },
        required: ['who'],
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png' }],
    });
    const old = await find('2025-03-26', 'greet');
    expect(old.title).toBeUndefined();
    expect(old.icons).toBeUndefined();
    expect(old.inputSchema.properties.who.title).toBeUndefined();
    expect((await find('2025-06-18', 'greet')).icons).toBeUndefined();
    expect(await find('2025-11-25', 'alpha')).toMatchObject({ inputSchema: { type: 'object', properties: {} } });
    const upstream = await find('2025-11-25', 'gh.review');
    expect(upstream).toMatchObject({
      name: 'gh.review',
      description: expect.stringMatching(/^Reviews a PR\n\n/),
      inputSchema: { type: 'object', properties: { pr: { type: 'string' } }, required: ['pr'] },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
      _meta: { 'dev.promptgate/origin': { upstream: 'gh', name: 'review' } },
    });
    expect((await find('2025-03-26', 'gh.review'))._meta).toBeUndefined();
  });

  it('carries the same modern cache hints as prompts/list, and cursors of one list are not the other’s', async () => {
    const p = await modern(ON, 'prompts/list');
    const t = await modern(ON, 'tools/list');
    expect({ ttlMs: t.body.result.ttlMs, cacheScope: t.body.result.cacheScope }).toEqual({
      ttlMs: p.body.result.ttlMs,
      cacheScope: p.body.result.cacheScope,
    });
    expect(t.body.result.ttlMs).toBeGreaterThan(0);
    expect(t.body.result.resultType).toBe('complete');
    const crossed = await modern(ON, 'prompts/list', { cursor: t.body.result.nextCursor });
    expect(crossed.body.error).toMatchObject({ code: -32602 });
    const back = await modern(ON, 'tools/list', { cursor: p.body.result.nextCursor });
    expect(back.body.error).toMatchObject({ code: -32602 });
    // A warm second call is the same page.
    expect((await modern(ON, 'tools/list')).body.result).toEqual(t.body.result);
  });

  it('TOOLS_MIRROR_TAGS keeps prompts with one of the tags; `tool: false` opts out whatever the tags', async () => {
    const items = (await all(modernList(TAGGED, 'tools/list'), 'tools')).items.map((t) => t.name);
    // Upstream prompts have no tags: a tag-restricted mirror shows local prompts only.
    expect(items).toEqual(['greet', 'picture']);
    const call = await modern(TAGGED, 'tools/call', { name: 'alpha' });
    expect(call.body.error).toMatchObject({ code: -32602, message: 'Unknown tool "alpha"' });
  });

  it('lists per view: a principal gets tools only for the prompts it may see', async () => {
    const names = async (p: Principal) => {
      const out: string[] = [];
      let cursor: string | undefined;
      do {
        const r = (await as(p, ON, 'tools/list', cursor === undefined ? {} : { cursor })).result;
        out.push(...r.tools.map((t: { name: string }) => t.name));
        cursor = r.nextCursor;
      } while (cursor);
      return out;
    };
    expect(await names(alice)).toContain('team-eng');
    expect(await names(bob)).not.toContain('team-eng');
    expect((await as(alice, ON, 'tools/list', {})).result.cacheScope).toBe('private');
  });
});

describe('tools/call', () => {
  const args: Record<string, Record<string, string>> = {
    greet: { who: 'alice', tone: 'formal' },
    linky: { path: 'src/a.ts' },
    embedded: { service: 'db' },
    picture: {},
    'zz-last': {},
  };

  it('renders exactly what prompts/get renders: text, links, resources and images stay what they are', async () => {
    for (const version of ['2025-11-25', '2025-03-26']) {
      const s = await legacy(ON, version);
      for (const [name, a] of Object.entries(args)) {
        const got = (await s.call('prompts/get', { name, arguments: a })).result;
        const tool = (await s.call('tools/call', { name, arguments: a })).result;
        expect(tool.isError).toBe(false);
        expect(tool.content).toEqual(got.messages.map((m: { content: unknown }) => m.content));
        expect(tool._meta).toEqual({
          'dev.promptgate/renderedPrompt': { name, roles: got.messages.map((m: { role: string }) => m.role) },
        });
      }
    }
    const s = await legacy(ON);
    const picture = (await s.call('tools/call', { name: 'picture' })).result;
    expect(picture.content[0]).toMatchObject({ type: 'image', mimeType: 'image/png' });
    const embedded = (await s.call('tools/call', { name: 'embedded', arguments: args.embedded })).result;
    expect(embedded.content[0]).toEqual({
      type: 'resource',
      resource: { uri: 'log://db', mimeType: 'text/plain', text: 'error in db' },
    });
    const modernCall = await modern(ON, 'tools/call', { name: 'greet', arguments: args.greet });
    expect(modernCall.body.result).toMatchObject({
      resultType: 'complete',
      isError: false,
      content: [{ type: 'text', text: 'Say hello to alice in a formal tone.' }],
    });
  });

  it('a missing or bad argument is a tool execution error the model can read, not a protocol error', async () => {
    const s = await legacy(ON);
    const missing = await s.call('tools/call', { name: 'greet', arguments: { tone: 'casual' } });
    expect(missing.result).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Missing required argument "who" for prompt "greet"' }],
    });
    const none = await s.call('tools/call', { name: 'greet' });
    expect(none.result.isError).toBe(true);
    const notString = await s.call('tools/call', { name: 'greet', arguments: { who: 42 } });
    expect(notString.result).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Argument "who" must be a string' }],
    });
    const notObject = await modern(ON, 'tools/call', { name: 'greet', arguments: 'alice' });
    expect(notObject.body.result).toMatchObject({ isError: true });
    // prompts/get keeps its protocol error for the same request.
    expect((await s.call('prompts/get', { name: 'greet', arguments: { who: 42 } })).error).toMatchObject({
      code: -32602,
    });
  });

  it('refuses an unknown, opted-out or hidden name exactly alike (-32602), and never routes it upstream', async () => {
    const unknown = (await as(bob, ON, 'tools/call', { name: 'nope' })).error;
    expect(unknown).toEqual({ code: -32602, message: 'Unknown tool "nope"', data: { name: 'nope' } });
    const same = (r: { error: unknown }, name: string) => JSON.stringify(r.error).replaceAll(name, 'nope');
    expect(same(await as(bob, ON, 'tools/call', { name: 'optout' }), 'optout')).toBe(JSON.stringify(unknown));
    expect(same(await as(bob, ON, 'tools/call', { name: 'team-eng' }), 'team-eng')).toBe(JSON.stringify(unknown));
    // An unlisted name under an upstream's prefix would route upstream for prompts/get: not a tool.
    expect(same(await as(bob, ON, 'tools/call', { name: 'gh.unlisted' }), 'gh.unlisted')).toBe(JSON.stringify(unknown));
    // The prompt itself is still there for prompts/get (opting out of the mirror hides nothing else).
    expect((await as(bob, ON, 'prompts/get', { name: 'optout' })).result.messages).toHaveLength(1);
    expect((await as(alice, ON, 'tools/call', { name: 'team-eng' })).result.content[0].text).toBe('eng only');
    const s = await legacy(ON);
    expect((await s.call('tools/call', { name: 42 })).error).toMatchObject({ code: -32602 });
  });

  it('modern: Mcp-Name must name the tool (400 -32020 when it disagrees)', async () => {
    const r = await modern(ON, 'tools/call', { name: 'greet', arguments: { who: 'bob' } }, { 'mcp-name': 'alpha' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: -32020, data: { mismatch: { header: 'Mcp-Name' } } });
    const absent = { ...(modernPost('tools/call', { name: 'greet' }).init.headers as Record<string, string>) };
    delete absent['mcp-name'];
    const { body } = modernPost('tools/call', { name: 'greet' });
    const res = await send(ON, { method: 'POST', headers: absent, body: JSON.stringify(body) });
    expect(res.status).toBe(400);
  });
});

const PROMPTS_CHANGED = 'notifications/prompts/list_changed';
const TOOLS_CHANGED = 'notifications/tools/list_changed';
const RESOURCES_CHANGED = 'notifications/resources/list_changed';

/** The next SSE frame that carries data (keepalive comments skipped), with or without an id. */
async function nextData(stream: EventStream) {
  for (let i = 0; i < 100; i++) {
    const f = await stream.next();
    if (f.data) return f;
  }
  throw new Error('no data frame');
}

/** A change of skills only, as the writer announces one, through the real change feed. */
async function publishSkillsChange(): Promise<number> {
  const feed = await feedStatus(env);
  const generation = Math.max(await readGeneration(env.PROMPTS), feed.published, feed.pending ?? 0) + 1;
  expect(await publishChange(env, { kind: 'prompts_list_changed', generation, lists: ['skills'] })).toBe(true);
  return generation;
}

/** The event id of generation `g` on the stream whose priming id is `priming` (`<key>.<generation>`). */
const idAt = (priming: string, g: number) => priming.replace(/\.\d+$/, `.${g}`);

describe('list_changed', () => {
  // A fan-out still pending from before (beforeAll's publishes, an earlier test's) must not reach
  // the streams a test opens: its ids would not be the test's.
  beforeEach(() => flushFeed());
  it('legacy GET stream: a prompts change is also a tools change; only the last frame carries the id', async () => {
    const s = await legacy(ON);
    const stream = await s.stream();
    await stream.next();
    const priming = await stream.next();
    const g = await publish(RECORDS);
    const first = await nextData(stream);
    const second = await nextData(stream);
    expect(JSON.parse(first.data!)).toEqual({ jsonrpc: '2.0', method: PROMPTS_CHANGED });
    expect(first.id).toBeUndefined();
    expect(JSON.parse(second.data!)).toEqual({ jsonrpc: '2.0', method: TOOLS_CHANGED });
    expect(second.id).toBe(idAt(priming.id!, g));
    // A skills change: skill resources only (SKILLS is on by default), with the next id.
    await flushFeed();
    const gs = await publishSkillsChange();
    const skills = await stream.nextMessage();
    expect(skills).toEqual({
      id: idAt(priming.id!, gs),
      message: { jsonrpc: '2.0', method: RESOURCES_CHANGED },
    });
    await stream.close();
    // Resuming after the first event replays the second whole, once; resuming after the last replays nothing.
    const resumed = await s.stream(second.id);
    expect(await resumed.nextMessage()).toEqual(skills);
    await resumed.close();
    const again = await s.stream(priming.id);
    const replayed = [await nextData(again), await nextData(again)];
    expect(replayed.map((f) => [f.id, JSON.parse(f.data!).method])).toEqual([
      [undefined, PROMPTS_CHANGED],
      [second.id, TOOLS_CHANGED],
    ]);
    expect(await again.nextMessage()).toEqual(skills);
    await again.close();
  });

  it('legacy GET stream with the mirror off: prompts only, as before', async () => {
    const s = await legacy(withVars(env, { SKILLS: 'off' }));
    const stream = await s.stream();
    await stream.next();
    const priming = await stream.next();
    await flushFeed();
    await publishSkillsChange();
    await flushFeed();
    const g = await publish(RECORDS);
    // The skills change means nothing to this stream; the prompts change is one frame with its id.
    const only = await stream.nextMessage();
    expect(only.message).toEqual({ jsonrpc: '2.0', method: PROMPTS_CHANGED });
    expect(only.id).toBe(idAt(priming.id!, g));
    await stream.close();
  });

  it('modern listen: tools and resources changes are honored when their feature is on', async () => {
    await serveCurrentCatalog();
    const notifications = { promptsListChanged: true, toolsListChanged: true, resourcesListChanged: true };
    const listen = async (e: Env) => {
      const { init } = modernPost('subscriptions/listen', { notifications });
      const stream = readEvents(await send(withVars(e, { LISTEN_MAX_MS: '60000' }), init));
      return { stream, ack: (await stream.nextMessage()).message };
    };
    const off = await listen(withVars(env, { SKILLS: 'off' }));
    expect(off.ack.params.notifications).toEqual({ promptsListChanged: true });
    await off.stream.close();
    const on = await listen(ON);
    expect(on.ack.params.notifications).toEqual(notifications);
    await flushFeed();
    await publish(RECORDS);
    const methods = [(await on.stream.nextMessage()).message, (await on.stream.nextMessage()).message];
    expect(methods.map((m) => m.method)).toEqual([PROMPTS_CHANGED, TOOLS_CHANGED]);
    for (const m of methods) expect(m.params._meta['io.modelcontextprotocol/subscriptionId']).toBeDefined();
    await flushFeed();
    await publishSkillsChange();
    expect((await on.stream.nextMessage()).message.method).toBe(RESOURCES_CHANGED);
    await on.stream.close();
  });
});

describe('prompt files', () => {
  it('`tool` must be a boolean', async () => {
    const r = await catalogWriter(env).publishSet(
      [{ name: 'bad-tool', tool: 'no', messages: [{ role: 'user', content: { type: 'text', text: 'x' } }] }],
      { prune: false, dryRun: true },
    );
    expect(r).toMatchObject({ ok: false });
    expect(JSON.stringify(r)).toContain('tool');
  });
});
