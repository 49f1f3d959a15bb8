/**
 * End-to-end, legacy protocol era (2025-11-25 back to 2025-03-26): a real
 * `wrangler dev` publishing the example prompts in prompts/, driven over
 * real HTTP by the official MCP SDK v1 client and by raw fetch.
 *
 * PAGE_SIZE is 2 so the seven example prompts span four list pages.
 * Every test opens its own session(s); clients are closed after each test.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, type ContentBlock, type Prompt, type PromptMessage } from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { placeholders } from '../../src/catalog/template.js';
import { INSTRUCTIONS } from '../../src/rpc/server-info.js';
import type { PromptRecord } from '../../src/catalog/types.js';
import { loadPromptDir } from '../../cli/fs-source.js';
import { postHeaders, request as rpc, SESSION_ID_SHAPE, type PostOptions } from '../helpers/protocol.js';
import { expectTransportCase, TRANSPORT_CASES } from '../helpers/transport-cases.js';
import { PROJECT_ROOT, startGateway, type Gateway } from '../helpers/wrangler-dev.js';

const PAGE_SIZE = 2;
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const loaded = loadPromptDir(join(PROJECT_ROOT, 'prompts'));
const RECORDS = new Map<string, PromptRecord>(loaded.records.map((r) => [r.name, r]));
const EXPECTED_NAMES = [...RECORDS.keys()].sort();

let gw: Gateway;

beforeAll(async () => {
  expect(loaded.issues, 'prompts/ must load without issues').toEqual([]);
  expect(EXPECTED_NAMES.length, 'the example catalog should need several pages').toBeGreaterThan(PAGE_SIZE);
  gw = await startGateway({ pageSize: PAGE_SIZE });
});

afterAll(async () => {
  await gw?.stop();
});

// --- SDK client plumbing ----------------------------------------------------

const opened: Client[] = [];

afterEach(async () => {
  await Promise.allSettled(opened.splice(0).map((c) => c.close()));
});

interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

async function connect(opts: { fetch?: typeof fetch; url?: string } = {}): Promise<Connected> {
  const client = new Client({ name: 'promptgate-e2e', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(
    new URL(opts.url ?? gw.mcpUrl),
    opts.fetch ? { fetch: opts.fetch } : undefined,
  );
  opened.push(client);
  await client.connect(transport);
  return { client, transport };
}

/** Walks prompts/list to the end through the SDK; returns every page. */
async function listAllPages(client: Client): Promise<Prompt[][]> {
  const pages: Prompt[][] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listPrompts(cursor === undefined ? {} : { cursor });
    pages.push(page.prompts);
    cursor = page.nextCursor;
    expect(pages.length, 'prompts/list pagination should terminate').toBeLessThanOrEqual(50);
  } while (cursor !== undefined);
  return pages;
}

/** Every string a rendered message carries in a field that templates can fill. */
function renderedStrings(messages: PromptMessage[]): string[] {
  const out: string[] = [];
  for (const { content } of messages) {
    const c = content as ContentBlock & Record<string, unknown>;
    for (const k of ['text', 'uri', 'name', 'title', 'description']) if (typeof c[k] === 'string') out.push(c[k]);
    if (c.type === 'resource') {
      const r = c.resource as Record<string, unknown>;
      for (const k of ['uri', 'text']) if (typeof r[k] === 'string') out.push(r[k]);
    }
  }
  return out;
}

/** Argument names a record's templates refer to via {{name}}. */
function placeholdersOf(r: PromptRecord): Set<string> {
  return new Set(placeholders(JSON.stringify(r.messages)));
}

// --- raw HTTP plumbing ------------------------------------------------------

interface RawOptions extends PostOptions {
  method?: string;
}

function raw(body: unknown, opts: RawOptions = {}): Promise<Response> {
  return fetch(gw.mcpUrl, {
    method: opts.method ?? 'POST',
    headers: postHeaders(opts),
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function jsonOf(res: Response): Promise<any> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`expected a JSON body with HTTP ${res.status}, got: ${text.slice(0, 300)}`);
  }
}

async function rawInitialize(protocolVersion: string): Promise<{ session: string; result: any }> {
  const res = await raw(
    rpc('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'raw-e2e', version: '0.0.0' } }),
  );
  expect(res.status, 'initialize should answer 200').toBe(200);
  const session = res.headers.get('mcp-session-id');
  expect(session, 'initialize should return an Mcp-Session-Id header').toMatch(SESSION_ID_SHAPE);
  const body = await jsonOf(res);
  expect(body.error, 'initialize should not fail').toBeUndefined();
  const initialized = await raw(
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { session: session!, version: body.result.protocolVersion },
  );
  expect(initialized.status, 'notifications/initialized should be accepted with 202').toBe(202);
  return { session: session!, result: body.result };
}

/** The JSON-RPC error a rejected SDK call carried. */
async function mcpErrorOf(p: Promise<unknown>): Promise<McpError> {
  const e = await p.then(
    (v) => {
      throw new Error(`expected the call to be rejected, but it resolved with ${JSON.stringify(v).slice(0, 300)}`);
    },
    (err: unknown) => err,
  );
  expect(e, `expected an McpError, got ${String(e)}`).toBeInstanceOf(McpError);
  return e as McpError;
}

// --- tests ------------------------------------------------------------------

describe('legacy era end to end (wrangler dev + MCP SDK v1 client)', () => {
  it('connects with the SDK client and sees the advertised capabilities, identity and instructions', async () => {
    const { client, transport } = await connect();
    const caps = client.getServerCapabilities();
    expect(caps?.prompts?.listChanged, 'capabilities.prompts.listChanged').toBe(true);
    expect(caps?.completions, 'capabilities.completions').toEqual({});
    expect(client.getServerVersion()?.name, 'serverInfo.name').toBe('promptgate');
    expect(client.getInstructions(), 'instructions').toBe(INSTRUCTIONS);
    expect(transport.protocolVersion, 'the SDK default (latest) revision should be accepted as-is').toBe('2025-11-25');
    expect(transport.sessionId, 'the transport should hold a session id').toMatch(SESSION_ID_SHAPE);
    await expect(client.ping(), 'ping on the new session').resolves.toEqual({});
  });

  it('connects at /mcp/ too: the SDK follows the 308 for every request of the session', async () => {
    const { client, transport } = await connect({ url: `${gw.mcpUrl}/` });
    expect(transport.sessionId, 'the session was opened through the redirect').toMatch(SESSION_ID_SHAPE);
    const names = (await listAllPages(client)).flat().map((p) => p.name);
    expect(names.sort()).toEqual(EXPECTED_NAMES);
    await expect(client.ping()).resolves.toEqual({});
  });

  it('pages through prompts/list with cursors and returns exactly the prompts in prompts/', async () => {
    const { client } = await connect();
    const pages = await listAllPages(client);
    const names = pages.flat().map((p) => p.name);

    expect(pages.length, `with PAGE_SIZE=${PAGE_SIZE} the list should need more than one page`).toBeGreaterThan(1);
    expect(pages.length, 'page count').toBe(Math.ceil(EXPECTED_NAMES.length / PAGE_SIZE));
    for (const [i, page] of pages.entries()) {
      expect(page.length, `page ${i + 1} must not exceed PAGE_SIZE`).toBeLessThanOrEqual(PAGE_SIZE);
    }
    const full = (i: number) => Math.min(PAGE_SIZE, EXPECTED_NAMES.length - i * PAGE_SIZE);
    expect(
      pages.map((p) => p.length),
      'full pages, then the rest',
    ).toEqual(pages.map((_, i) => full(i)));
    expect(new Set(names).size, `prompt names across pages must be unique: ${names.join(', ')}`).toBe(names.length);
    expect([...names].sort(), 'the union of all pages must equal the prompts loaded from prompts/').toEqual(
      EXPECTED_NAMES,
    );
    // Titles are a 2025-06-18+ field; the SDK negotiates 2025-11-25.
    for (const p of pages.flat())
      expect(p.title, `prompt ${p.name} should carry its title`).toBe(RECORDS.get(p.name)!.title);
  });

  it('gets every prompt with its arguments filled in and renders each supplied value', async () => {
    const { client } = await connect();
    const prompts = (await listAllPages(client)).flat();
    const nonce = Math.random().toString(36).slice(2, 8);

    for (const prompt of prompts) {
      const record = RECORDS.get(prompt.name)!;
      const listedArgs = prompt.arguments ?? [];
      const required = listedArgs.filter((a) => a.required).map((a) => a.name);
      expect(required, `${prompt.name}: listed required arguments`).toEqual(
        (record.arguments ?? []).filter((a) => a.required).map((a) => a.name),
      );

      // A value for every listed argument: all required ones, plus the optional ones.
      const args: Record<string, string> = {};
      for (const a of listedArgs) {
        args[a.name] =
          prompt.name === 'code_review' && a.name === 'code'
            ? `function add_${nonce}(a, b) {\n  return a + b; // e2e\n}`
            : `e2e_${a.name}_${nonce}`;
      }

      const result = await client.getPrompt({ name: prompt.name, arguments: args });
      expect(result.messages.length, `${prompt.name}: one message per section`).toBe(record.messages.length);
      for (const m of result.messages) expect(['user', 'assistant'], `${prompt.name}: role`).toContain(m.role);

      const rendered = renderedStrings(result.messages);
      const used = placeholdersOf(record);
      for (const [name, value] of Object.entries(args)) {
        if (!used.has(name)) continue;
        expect(
          rendered.some((s) => s.includes(value)),
          `${prompt.name}: the value of "${name}" (${JSON.stringify(value)}) should appear in the rendered messages`,
        ).toBe(true);
      }
      for (const s of rendered) {
        for (const name of placeholders(s)) {
          expect(used.has(name), `${prompt.name}: placeholder {{${name}}} was left unrendered`).toBe(false);
        }
      }
    }

    const byName = new Map(prompts.map((p) => [p.name, p]));
    expect(
      byName.has('code_review') && byName.has('debug_session') && byName.has('ui_review'),
      'example prompts present',
    ).toBe(true);
  });

  it('renders the example content block types (embedded resource, PNG image, resource link)', async () => {
    const { client } = await connect();

    const debug = await client.getPrompt({
      name: 'debug_session',
      arguments: { service: 'checkout-api', symptom: 'p99 is 6 s' },
    });
    const embedded = debug.messages.map((m) => m.content).find((c) => c.type === 'resource');
    expect(embedded?.type, 'debug_session should have an embedded resource content block').toBe('resource');
    if (embedded?.type !== 'resource') throw new Error('unreachable');
    expect(embedded.resource.uri, 'embedded resource uri is templated').toBe(
      'file:///var/log/checkout-api/checkout-api.log',
    );
    expect('text' in embedded.resource && embedded.resource.text, 'embedded log text is templated').toContain(
      'checkout-api db.pool',
    );

    const ui = await client.getPrompt({ name: 'ui_review', arguments: {} });
    const image = ui.messages.map((m) => m.content).find((c) => c.type === 'image');
    expect(image?.type, 'ui_review should have an image content block').toBe('image');
    if (image?.type !== 'image') throw new Error('unreachable');
    expect(image.mimeType, 'ui_review image mimeType').toBe('image/png');
    expect(
      [...Buffer.from(image.data, 'base64').subarray(0, 8)],
      'ui_review image data should be a base64 PNG',
    ).toEqual(PNG_MAGIC);

    const postmortem = await client.getPrompt({ name: 'incident_postmortem', arguments: { incident: 'db outage' } });
    const link = postmortem.messages.map((m) => m.content).find((c) => c.type === 'resource_link');
    expect(link?.type, 'incident_postmortem keeps its resource_link block on 2025-11-25').toBe('resource_link');
    if (link?.type !== 'resource_link') throw new Error('unreachable');
    expect(link.uri).toBe('https://sre.google/sre-book/postmortem-culture/');
  });

  it('completes argument values with completion/complete', async () => {
    const { client } = await connect();
    const res = await client.complete({
      ref: { type: 'ref/prompt', name: 'code_review' },
      argument: { name: 'language', value: 'ty' },
    });
    expect(res.completion.values, 'completions for language="ty"').toContain('typescript');
    expect(res.completion.values[0], 'prefix matches rank first').toBe('typescript');
    expect(res.completion.total, 'total counts every match').toBeGreaterThanOrEqual(res.completion.values.length);
  });

  it('surfaces invalid params as McpError -32602 through the SDK', async () => {
    const { client } = await connect();

    const unknown = await mcpErrorOf(client.getPrompt({ name: 'no_such_prompt_e2e' }));
    expect(unknown.code, 'unknown prompt name').toBe(-32602);
    expect(unknown.message, 'unknown prompt message names the prompt').toContain('no_such_prompt_e2e');

    const missing = await mcpErrorOf(client.getPrompt({ name: 'code_review', arguments: { language: 'go' } }));
    expect(missing.code, 'missing required argument').toBe(-32602);
    expect(missing.message, 'missing-argument message names "code"').toContain('"code"');

    const badCursor = await mcpErrorOf(client.listPrompts({ cursor: 'garbage-cursor-e2e' }));
    expect(badCursor.code, 'garbage cursor').toBe(-32602);

    // The session survives all three errors.
    await expect(client.listPrompts(), 'session still usable after errors').resolves.toHaveProperty('prompts');
  });

  describe('raw HTTP error paths', () => {
    // The shared matrix (test/helpers/transport-cases.ts), here over real HTTP: undici's default
    // headers (an absent Accept becomes */*) and the dev server's HTTP stack are in the path.
    it.each(TRANSPORT_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) =>
      expectTransportCase(fetch, gw.mcpUrl, c),
    );
  });

  it('ends a session on DELETE: the old id gets 404 and new clients still connect', async () => {
    const { client, transport } = await connect();
    const session = transport.sessionId;
    expect(session, 'session id before termination').toMatch(SESSION_ID_SHAPE);
    await client.ping();

    await transport.terminateSession();
    expect(transport.sessionId, 'the SDK forgets the id after terminateSession').toBeUndefined();

    const after = await raw(rpc('ping'), { session: session! });
    expect(after.status, 'ping with the ended session id').toBe(404);
    expect((await jsonOf(after)).error?.code, 'session-not-found code').toBe(-32001);

    const again = await fetch(gw.mcpUrl, { method: 'DELETE', headers: { 'mcp-session-id': session! } });
    expect(again.status, 'a second DELETE of the same session').toBe(404);

    const { client: fresh, transport: freshTransport } = await connect();
    expect(freshTransport.sessionId, 'a new session is issued').toMatch(SESSION_ID_SHAPE);
    expect(freshTransport.sessionId, 'the new session differs from the ended one').not.toBe(session);
    await expect(fresh.ping(), 'the new session works').resolves.toEqual({});
  });

  describe('older clients (2025-03-26)', () => {
    it('negotiates 2025-03-26 over raw HTTP, lists without titles and answers batches', async () => {
      const { session, result } = await rawInitialize('2025-03-26');
      expect(result.protocolVersion, 'negotiated revision').toBe('2025-03-26');
      expect(result.serverInfo?.name).toBe('promptgate');
      expect(result.serverInfo?.title, 'no Implementation.title before 2025-06-18').toBeUndefined();

      const names: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const res = await raw(rpc('prompts/list', cursor === undefined ? undefined : { cursor }), {
          session,
          version: '2025-03-26',
        });
        expect(res.status, 'prompts/list on a 2025-03-26 session').toBe(200);
        const body = await jsonOf(res);
        expect(body.error, 'prompts/list error').toBeUndefined();
        for (const p of body.result.prompts as Record<string, any>[]) {
          names.push(p.name);
          expect(p, `${p.name}: no title before 2025-06-18`).not.toHaveProperty('title');
          expect(p, `${p.name}: no icons before 2025-11-25`).not.toHaveProperty('icons');
          for (const a of p.arguments ?? [])
            expect(a, `${p.name}.${a.name}: no argument title before 2025-06-18`).not.toHaveProperty('title');
        }
        cursor = body.result.nextCursor;
        expect(++pages, 'pagination should terminate').toBeLessThanOrEqual(50);
      } while (cursor !== undefined);
      expect(names.sort(), 'all prompts listed on the old revision too').toEqual(EXPECTED_NAMES);

      const a = rpc('ping');
      const b = rpc('ping');
      const res = await raw([a, b], { session, version: '2025-03-26' });
      expect(res.status, 'a batch on a 2025-03-26 session').toBe(200);
      const replies = await jsonOf(res);
      expect(Array.isArray(replies), 'a batch answers with an array').toBe(true);
      expect(replies, 'one reply per request').toHaveLength(2);
      expect(replies.map((r: { id: number }) => r.id).sort(), 'reply ids').toEqual([a.id, b.id].sort());
      for (const r of replies) expect(r.result, `reply ${r.id}`).toEqual({});
    });

    it('degrades resource_link to text for 2025-03-26', async () => {
      const { session } = await rawInitialize('2025-03-26');
      const res = await raw(rpc('prompts/get', { name: 'incident_postmortem', arguments: { incident: 'x' } }), {
        session,
        version: '2025-03-26',
      });
      const body = await jsonOf(res);
      const types = (body.result.messages as { content: { type: string } }[]).map((m) => m.content.type);
      expect(types, 'no resource_link block on 2025-03-26').not.toContain('resource_link');
      expect(JSON.stringify(body.result.messages), 'the link survives as text').toContain(
        'https://sre.google/sre-book/postmortem-culture/',
      );
    });

    it('refuses batches on a 2025-11-25 session', async () => {
      const { session } = await rawInitialize('2025-11-25');
      const res = await raw([rpc('ping'), rpc('ping')], { session, version: '2025-11-25' });
      expect(res.status, 'batches are not part of 2025-11-25').toBe(400);
      expect((await jsonOf(res)).error?.code).toBe(-32600);
    });

    it('lets an SDK client negotiate 2025-03-26 and shapes its responses for that revision', async () => {
      // The v1 client always offers its latest revision; this transport offers 2025-03-26 instead.
      const downgrade: typeof fetch = async (input, init) => {
        if (typeof init?.body === 'string' && init.body.includes('"method":"initialize"')) {
          const msg = JSON.parse(init.body);
          msg.params.protocolVersion = '2025-03-26';
          init = { ...init, body: JSON.stringify(msg) };
        }
        return fetch(input, init);
      };
      const { client, transport } = await connect({ fetch: downgrade });
      expect(transport.protocolVersion, 'negotiated revision').toBe('2025-03-26');
      expect(client.getServerVersion()?.title, 'no Implementation.title on 2025-03-26').toBeUndefined();

      const prompts = (await listAllPages(client)).flat();
      expect(prompts.map((p) => p.name).sort()).toEqual(EXPECTED_NAMES);
      for (const p of prompts) expect(p.title, `${p.name}: no title on 2025-03-26`).toBeUndefined();

      // The SDK cannot send batches; reuse its session for one over raw HTTP.
      const res = await raw([rpc('ping'), rpc('ping')], { session: transport.sessionId!, version: '2025-03-26' });
      expect(res.status).toBe(200);
      expect(await jsonOf(res)).toHaveLength(2);
    });
  });
});
