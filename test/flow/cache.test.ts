/**
 * CDN-cached listings through the real Worker, KV and the Cache API:
 * GET /prompts headers, ETag/304, pages served to a cold isolate from the
 * edge cache with no KV read (counted on the real binding), POST
 * prompts/list of both eras from the same pages with their own ids, fresh
 * pages after a generation bump, private pages kept per principal, and the
 * provisional first page of an upstream merged ahead of the writer.
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROMPTS } from '../../src/catalog/catalog.js';
import { readPage } from '../../src/catalog/edge.js';
import { pageVariant } from '../../src/catalog/listing-keys.js';
import { configOf } from '../../src/lib/config.js';
import { forgetUpstreamConfig, UPSTREAMS_KEY } from '../../src/catalog/upstreams/config.js';
import { catalogWriter } from '../../src/catalog/stubs.js';
import worker from '../../src/index.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { mountInIsolate, sdkUpstream } from '../helpers/in-isolate-upstream.js';
import { ACCEPT, countingEnv, MCP_URL, openSession, publish, request } from '../helpers/worker.js';

const LIST_URL = 'https://gateway.test/prompts';

/** One request through the Worker, waiting for its background work (edge-cache writes) too. */
async function send(req: Request, e: Env = env): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(req, e, ctx);
  const body = await res.arrayBuffer();
  await waitOnExecutionContext(ctx);
  return new Response(res.status === 304 ? null : body, res);
}

const get = (url = LIST_URL, headers: Record<string, string> = {}) => new Request(url, { headers });
const V = '2026-07-28';
function modernList(id: number, cursor?: string) {
  const body = {
    jsonrpc: '2.0',
    id,
    method: 'prompts/list',
    params: {
      ...(cursor ? { cursor } : {}),
      _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} },
    },
  };
  return new Request(MCP_URL, {
    method: 'POST',
    headers: {
      accept: ACCEPT,
      'content-type': 'application/json',
      'mcp-protocol-version': V,
      'mcp-method': 'prompts/list',
    },
    body: JSON.stringify(body),
  });
}

beforeAll(async () => {
  await publish(FIXTURE_PROMPTS);
});

describe('GET /prompts', () => {
  it('is a JSON page with CDN cache headers, a strong ETag and CORS', async () => {
    const res = await send(get(LIST_URL, { origin: 'https://dashboard.example' }));
    expect(res.status).toBe(200);
    const cc = res.headers.get('cache-control')!;
    for (const d of ['public', 'max-age=60', 's-maxage=60', 'stale-while-revalidate=60', 'stale-if-error='])
      expect(cc).toContain(d);
    expect(res.headers.get('etag')).toMatch(/^"g\d+-[0-9a-z]+"$/);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
    expect(body.prompts.map((p: any) => p.name)).toEqual(['alpha', 'embedded', 'greet']);
    const next = (await (await send(get(`${LIST_URL}?cursor=${encodeURIComponent(body.nextCursor)}`))).json()) as any;
    expect(next.prompts[0].name).toBe('linky');
  });
  it('answers If-None-Match with 304, and a bad cursor with 400', async () => {
    const first = await send(get());
    const etag = first.headers.get('etag')!;
    const again = await send(get(LIST_URL, { 'if-none-match': etag }));
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect((await send(get(LIST_URL, { 'if-none-match': '"g0-nope"' }))).status).toBe(200);
    const forged = await send(get(`${LIST_URL}?cursor=forged`));
    expect(forged.status).toBe(400);
    // CORS-open like the page: a browser must be able to read why (and restart from page one).
    expect(forged.headers.get('access-control-allow-origin')).toBe('*');
  });
  it('GET /prompts/{name} gives one prompt with the same caching, and 404 for an unknown one', async () => {
    const res = await send(get(`${LIST_URL}/greet`));
    expect(((await res.json()) as any).prompt).toMatchObject({ name: 'greet', title: 'Greeting' });
    expect(res.headers.get('cache-control')).toContain('s-maxage=60');
    expect((await send(get(`${LIST_URL}/greet`, { 'if-none-match': res.headers.get('etag')! }))).status).toBe(304);
    const unknown = await send(get(`${LIST_URL}/nope`));
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('access-control-allow-origin')).toBe('*');
    // Never kept by a cache in front: the prompt may be published a moment later, or be another view's.
    expect(unknown.headers.get('cache-control')).toBe('no-store');
  });
});

describe('edge cache', () => {
  it('serves a second listing to a cold isolate without reading KV', async () => {
    const warm = await (await send(get())).text();
    const cold = countingEnv();
    const res = await send(get(), cold.env);
    expect(await res.text()).toBe(warm);
    expect(cold.reads).toEqual([]);
    // The counter does see reads: a route that needs the catalog itself loads it from KV.
    const control = countingEnv();
    await send(get(`${LIST_URL}/greet`), control.env);
    expect(control.reads).toEqual(['get catalog/head']);
  });
  it('serves POST prompts/list of both eras from the cache, each with its own id', async () => {
    await send(modernList(1));
    const cold = countingEnv();
    const a = (await (await send(modernList(101), cold.env)).json()) as any;
    const b = (await (await send(modernList(102), cold.env)).json()) as any;
    expect(cold.reads).toEqual([]);
    expect([a.id, b.id]).toEqual([101, 102]);
    expect(a.result).toEqual(b.result);
    expect(a.result).toMatchObject({ resultType: 'complete', ttlMs: 60_000, cacheScope: 'public' });

    const s = await openSession('2025-11-25');
    const legacy = (id: number) =>
      new Request(MCP_URL, {
        method: 'POST',
        headers: {
          accept: ACCEPT,
          'content-type': 'application/json',
          'mcp-session-id': s.id,
          'mcp-protocol-version': s.version,
        },
        body: JSON.stringify({ ...request('prompts/list'), id }),
      });
    await send(legacy(7));
    const coldLegacy = countingEnv();
    const l = (await (await send(legacy(8), coldLegacy.env)).json()) as any;
    expect(coldLegacy.reads).toEqual([]);
    expect(l.id).toBe(8);
    expect(l.result.prompts.map((p: any) => p.name)).toEqual(['alpha', 'embedded', 'greet']);
    expect(l.result.ttlMs).toBeUndefined();
  });
  it('a cursor that cannot be ours is -32602 on a cold isolate too, never an internal error', async () => {
    await send(modernList(1));
    for (const cursor of ['\ud800', 'a b', 'x'.repeat(201)]) {
      const res = (await (await send(modernList(301, cursor), countingEnv().env)).json()) as any;
      expect(res.error?.code, JSON.stringify(cursor)).toBe(-32602);
      expect(res.id).toBe(301);
    }
  });
  it("never serves a page whose cursors the isolate's signing secret refuses (a rotated secret)", async () => {
    // This generation's first page is in the edge cache, its cursor signed with the current secret.
    await send(get());
    const rotated = { ...countingEnv().env, SIGNING_SECRET: 'rotated-signing-secret' };
    const first = (await (await send(get(), rotated)).json()) as any;
    // The next page from an isolate that holds the catalog, as most requests after a deploy are.
    expect((await send(get(`${LIST_URL}/greet`), rotated)).status).toBe(200);
    const next = await send(get(`${LIST_URL}?cursor=${encodeURIComponent(first.nextCursor)}`), rotated);
    expect(next.status).toBe(200);
    expect(((await next.json()) as any).prompts[0].name).toBe('linky');
  });
  it('serves fresh pages after a generation bump, with a new ETag', async () => {
    const before = await send(get());
    const oldTag = before.headers.get('etag')!;
    await publish([
      { name: 'aaa-new', messages: [{ role: 'user', content: { type: 'text', text: 'new' } }] },
      ...FIXTURE_PROMPTS,
    ]);
    const after = await send(get());
    expect(after.headers.get('etag')).not.toBe(oldTag);
    expect(((await after.json()) as any).prompts[0].name).toBe('aaa-new');
    expect((await send(get(LIST_URL, { 'if-none-match': oldTag }))).status).toBe(200);
    const cold = countingEnv();
    expect(((await (await send(get(), cold.env)).json()) as any).prompts[0].name).toBe('aaa-new');
  });
});

describe('private listings', () => {
  beforeAll(async () => {
    // A configured upstream that said private: the merged list must become 0/private, never public.
    await env.PROMPTS.put(
      UPSTREAMS_KEY,
      JSON.stringify([{ id: 'secretive', url: 'https://secretive.example/mcp', prefix: 'sec' }]),
    );
    await catalogWriter(env).upstreamsReported([
      {
        id: 'secretive',
        prefix: 'sec',
        prompts: [{ name: 'sec.one', origin: { upstream: 'secretive', name: 'one' } }],
        hints: { ttlMs: 0, cacheScope: 'private' },
      },
    ]);
  });
  afterAll(async () => {
    await env.PROMPTS.delete(UPSTREAMS_KEY);
    forgetUpstreamConfig(env);
    await catalogWriter(env).reconcileUpstreams();
  });
  it('narrows the hints and the HTTP caching', async () => {
    const res = await send(get(LIST_URL, { authorization: 'Bearer alice' }));
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
    expect(res.headers.get('vary')).toBe('Authorization, Cf-Access-Jwt-Assertion, Cookie');
    expect((await res.json()) as any).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    const modern = (await (await send(modernList(5))).json()) as any;
    expect(modern.result).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
  });
  it('never serves a private page to another principal', async () => {
    const alice = await (await send(get(LIST_URL, { authorization: 'Bearer alice' }))).text();
    const coldAlice = countingEnv();
    expect(await (await send(get(LIST_URL, { authorization: 'Bearer alice' }), coldAlice.env)).text()).toBe(alice);
    expect(coldAlice.reads).toEqual([]);
    const coldBob = countingEnv();
    await send(get(LIST_URL, { authorization: 'Bearer bob' }), coldBob.env);
    // A cold private listing reads the catalog and the upstream list, nothing cached for alice.
    expect(coldBob.reads).toEqual(['get catalog/head', 'get config/upstreams']);
  });
});

describe('a provisional page (an upstream merged ahead of the writer)', () => {
  /** A real SDK v2 server in this isolate (in-isolate-upstream.ts sdkUpstream). */
  const upstream = sdkUpstream(() => {
    // Hints that narrow nothing: the merged page's hints are its base page's.
    const cacheHints = { 'prompts/list': { ttlMs: 300_000, cacheScope: 'public' as const } };
    const server = new McpServer({ name: 'late-upstream', version: '1.0.0' }, { cacheHints });
    server.registerPrompt('hello', { description: 'late hello' }, () => ({
      messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }],
    }));
    return server;
  });
  const LOCAL = FIXTURE_PROMPTS[0]!.name;
  let base: { etag: string; generation: number };
  let unmount: () => Promise<void>;
  beforeAll(async () => {
    // One local prompt and one upstream prompt: the merged first page fits PAGE_SIZE (3), so the
    // cold path serves it at once, ahead of the writer (catalog/upstreams/cold.ts).
    const generation = await publish(FIXTURE_PROMPTS.slice(0, 1));
    const res = await send(get());
    expect(((await res.json()) as any).prompts.map((p: any) => p.name)).toEqual([LOCAL]);
    base = { etag: res.headers.get('etag')!, generation };
    // As a deploy that adds an upstream: configured, never listed, no new generation.
    unmount = await mountInIsolate('late.example', upstream, { id: 'late', prefix: 'late' });
  });
  afterAll(() => unmount());
  it('is never a 304 to the base page, is revalidated, and is not kept under the base generation', async () => {
    const ctx = createExecutionContext();
    // The request that lists the upstream answers before the writer publishes: its page is the merge.
    const res = await worker.fetch(get(LIST_URL, { 'if-none-match': base.etag }), env, ctx);
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.prompts.map((p: any) => p.name)).toEqual([LOCAL, 'late.hello']);
    const etag = res.headers.get('etag')!;
    // The base's generation (no new one yet), but its own tag, and HTTP caches must ask again.
    expect(etag).toMatch(new RegExp(`^"g${base.generation}-`));
    expect(etag).not.toBe(base.etag);
    expect(body).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
    expect(res.headers.get('cache-control')).toBe('public, no-cache');
    await waitOnExecutionContext(ctx);
    // The base generation's page in the edge cache is still the base page.
    const variant = await pageVariant({ cfg: configOf(env), secret: env.SIGNING_SECRET }, PROMPTS, V);
    const key = { origin: 'https://gateway.test', scope: 'public', principal: 'public', view: '-' } as const;
    const stored = await readPage({ ...key, generation: base.generation, variant, cursor: undefined });
    expect(JSON.parse(stored!).prompts.map((p: any) => p.name)).toEqual([LOCAL]);
    // Published since: a client holding either tag gets the writer's page.
    for (const tag of [base.etag, etag]) {
      const again = await send(get(LIST_URL, { 'if-none-match': tag }));
      expect(again.status).toBe(200);
      expect(((await again.json()) as any).prompts.map((p: any) => p.name)).toEqual([LOCAL, 'late.hello']);
    }
  });
});
