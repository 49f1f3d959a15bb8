/**
 * End-to-end, the tools mirror (docs/tools-mirror.md) against a real `wrangler dev` with
 * TOOLS_MIRROR on and an SDK v1 upstream behind the aggregator: a tool-only client, the official
 * SDK v1 client (legacy era) and the SDK v2 client (modern era, 2026-07-28), finds every prompt
 * with `listTools` and uses each with `callTool`, getting what prompts/get gives; unknown tools are
 * refused; and a publish reaches each client as notifications/tools/list_changed.
 */
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
  type Tool as ModernTool,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPromptDir } from '../../cli/fs-source.js';
import { feedQuiet, streamWatch, waitUntil } from '../helpers/live.js';
import { legacyServer, type Running } from '../helpers/upstreams.js';
import { PROJECT_ROOT, startGateway, type Gateway } from '../helpers/wrangler-dev.js';

const LOCAL = loadPromptDir(join(PROJECT_ROOT, 'prompts')).records.map((r) => r.name);
const UPSTREAM_NAME = 'up.alpha';

let gw: Gateway;
let upstream: Running;

beforeAll(async () => {
  upstream = await legacyServer([
    { name: 'alpha', description: 'Upstream alpha', args: [{ name: 'topic', required: true }], text: 'alpha: {topic}' },
  ]);
  gw = await startGateway({
    pageSize: 3,
    vars: {
      TOOLS_MIRROR: 'on',
      UPSTREAMS: JSON.stringify([{ id: 'up', url: upstream.url }]),
      UPSTREAM_ALLOW_HTTP_LOOPBACK: 'true',
      NOTIFY_COALESCE_MS: 100,
    },
  });
}, 120_000);

afterAll(async () => {
  await gw?.stop();
  await upstream?.close();
});

/** What a tool-only client does with a schema it knows nothing else about: the first allowed value, or a word. */
function argumentsFor(tool: Tool | ModernTool): Record<string, string> {
  const props = (tool.inputSchema.properties ?? {}) as Record<string, { enum?: string[] }>;
  return Object.fromEntries(
    (tool.inputSchema.required ?? []).map((name) => [name, props[name]?.enum?.[0] ?? 'sample']),
  );
}

/** The two clients as a tool-only client uses them. */
interface ToolClient {
  listTools(p?: { cursor?: string }): Promise<{ tools: (Tool | ModernTool)[]; nextCursor?: string }>;
  callTool(p: { name: string; arguments?: Record<string, unknown> }): Promise<Record<string, unknown>>;
  getPrompt(p: { name: string; arguments?: Record<string, string> }): Promise<{ messages: { content: unknown }[] }>;
}

/** A fetch that counts the tools/list pages a client asks for on the wire (the v2 client walks them itself). */
function pageCounter() {
  let pages = 0;
  const fetchCounting = (url: string | URL, init?: RequestInit) => {
    if (typeof init?.body === 'string' && JSON.parse(init.body).method === 'tools/list') pages += 1;
    return fetch(url, init);
  };
  return { fetch: fetchCounting, pages: () => pages };
}

async function everyTool(client: ToolClient, pages: () => number): Promise<(Tool | ModernTool)[]> {
  const out: (Tool | ModernTool)[] = [];
  let cursor: string | undefined;
  let calls = 0;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    out.push(...page.tools);
    cursor = page.nextCursor;
    calls += 1;
  } while (cursor && calls < 50);
  expect(pages(), 'PAGE_SIZE 3: several pages on the wire').toBeGreaterThan(1);
  return out;
}

/** Finds and uses every prompt through tools only; checks each result against prompts/get. */
async function useEverything(client: ToolClient, pages: () => number): Promise<void> {
  const tools = await everyTool(client, pages);
  expect(tools.map((t) => t.name).sort()).toEqual([...LOCAL, UPSTREAM_NAME].sort());
  const kinds = new Set<string>();
  for (const tool of tools) {
    const args = argumentsFor(tool);
    const result = await client.callTool({ name: tool.name, arguments: args });
    expect(result.isError, tool.name).toBe(false);
    const content = result.content as { type: string }[];
    for (const c of content) kinds.add(c.type);
    const got = await client.getPrompt({ name: tool.name, arguments: args });
    expect(content, `${tool.name}: the prompt's messages, in order`).toEqual(got.messages.map((m) => m.content));
    const meta = result._meta as Record<string, { name?: string } | undefined>;
    expect(meta['dev.promptgate/renderedPrompt']?.name).toBe(tool.name);
  }
  // The example prompts' images and embedded resources stay what they are.
  expect([...kinds].sort()).toEqual(expect.arrayContaining(['image', 'resource', 'text']));
  const up = await client.callTool({ name: UPSTREAM_NAME, arguments: { topic: 'caching' } });
  expect(up).toMatchObject({
    isError: false,
    content: [{ type: 'text', text: 'alpha: caching' }],
    _meta: { 'dev.promptgate/origin': { upstream: 'up', name: 'alpha' } },
  });
  expect((tools.find((t) => t.name === UPSTREAM_NAME)!.annotations as { openWorldHint?: boolean }).openWorldHint).toBe(
    true,
  );
  // A missing argument is the model's to fix (isError), upstream as locally; an unknown tool is a protocol error.
  expect(await client.callTool({ name: UPSTREAM_NAME, arguments: {} })).toMatchObject({ isError: true });
  expect(await client.callTool({ name: 'code_review', arguments: {} })).toMatchObject({ isError: true });
  await expect(client.callTool({ name: 'no_such_prompt', arguments: {} })).rejects.toThrow(/Unknown tool/);
}

async function publishPrompt(name: string): Promise<void> {
  const put = await fetch(`${gw.url}/admin/prompts/${name}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${gw.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: { type: 'text', text: 'Hello' } }] }),
  });
  expect(put.status, await put.clone().text()).toBe(200);
  const del = await fetch(`${gw.url}/admin/prompts/${name}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${gw.adminToken}` },
  });
  expect(del.status).toBe(200);
}

describe('SDK v1 client (legacy era)', () => {
  it('a tool-only client finds and uses every prompt it may see', async () => {
    const client = new Client({ name: 'tools-e2e', version: '1' });
    const counter = pageCounter();
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl), { fetch: counter.fetch }));
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    await useEverything(client as unknown as ToolClient, counter.pages);
    await client.close();
  });

  it('hears notifications/tools/list_changed on its GET stream after a publish', async () => {
    await feedQuiet(gw.url);
    const client = new Client({ name: 'tools-e2e', version: '1' });
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changed += 1));
    const watch = streamWatch();
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl), { fetch: watch.fetch }));
    await watch.attached();
    await publishPrompt('tools_e2e_legacy');
    await waitUntil(() => changed > 0, 'notifications/tools/list_changed');
    await client.close();
  });
});

describe('SDK v2 client (modern era)', () => {
  const counter = pageCounter();
  const connect = async () => {
    const client = new ModernClient({ name: 'tools-e2e', version: '2' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new ModernTransport(new URL(gw.mcpUrl), { fetch: counter.fetch }));
    expect(client.getProtocolEra()).toBe('modern');
    return client;
  };

  it('a tool-only client finds and uses every prompt it may see', async () => {
    const client = await connect();
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    await useEverything(client as unknown as ToolClient, counter.pages);
    await client.close();
  });

  it('a listen stream honors toolsListChanged and delivers it after a publish', async () => {
    await feedQuiet(gw.url);
    const client = await connect();
    let changed = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => void (changed += 1));
    const sub = await client.listen({ toolsListChanged: true });
    expect(sub.honoredFilter.toolsListChanged).toBe(true);
    await publishPrompt('tools_e2e_modern');
    await waitUntil(() => changed > 0, 'notifications/tools/list_changed');
    await sub.close();
    await client.close();
  });
});
