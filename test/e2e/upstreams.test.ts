/**
 * Aggregation against real upstream MCP servers through `wrangler dev`: a
 * sessionful SDK v1 server with a paginated list, an SDK v2 modern server,
 * server-everything, and a server that hangs. Names are namespaced, get and
 * complete route by name alone, errors map cleanly, one bad upstream does
 * not take the list down, and an upstream change reaches SDK clients.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, PromptListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedQuiet, feedState, streamWatch, waitUntil } from '../helpers/live.js';
import {
  everything,
  faultyServer,
  legacyServer,
  modernServer,
  type LegacyPrompt,
  type Running,
} from '../helpers/upstreams.js';
import { PROJECT_ROOT, startGateway, type Gateway } from '../helpers/wrangler-dev.js';

const LEGACY: LegacyPrompt[] = [
  { name: 'alpha', text: 'legacy alpha' },
  { name: 'beta', text: 'beta {who}', args: [{ name: 'who', required: true, values: ['world', 'wombat', 'team'] }] },
  { name: 'gamma', text: 'gamma' },
];
let gw: Gateway;
const servers: Running[] = [];
let legacyPrompts: LegacyPrompt[];

async function connect(): Promise<Client> {
  const client = new Client({ name: 'upstreams-e2e', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl)));
  return client;
}

/**
 * A client counting list_changed from zero: every change before it is fanned out first, and its
 * GET stream is open at the gateway when this resolves (events in /status and on the wire, no delay).
 */
async function counting(onChange: () => void): Promise<Client> {
  await feedQuiet(gw.url);
  const client = new Client({ name: 'upstreams-e2e', version: '1' });
  client.setNotificationHandler(PromptListChangedNotificationSchema, onChange);
  const watch = streamWatch();
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl), { fetch: watch.fetch }));
  await watch.attached();
  return client;
}

async function listAll(client: Client): Promise<{ name: string; _meta?: Record<string, unknown> }[]> {
  const all: { name: string; _meta?: Record<string, unknown> }[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listPrompts(cursor ? { cursor } : {});
    all.push(...page.prompts);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}

async function refresh(): Promise<Record<string, { ok: boolean; prompts: number; error?: string }>> {
  const res = await fetch(`${gw.url}/admin/upstreams/refresh`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.adminToken}` },
  });
  return ((await res.json()) as { upstreams: Record<string, { ok: boolean; prompts: number; error?: string }> })
    .upstreams;
}

beforeAll(async () => {
  legacyPrompts = [...LEGACY];
  const legacy = await legacyServer(legacyPrompts);
  const modern = await modernServer(['plan', 'alpha']);
  const ev = await everything();
  const hang = await faultyServer('hang');
  const faults = await Promise.all((['error500', 'garbage', 'cut', 'slowsse'] as const).map((f) => faultyServer(f)));
  servers.push(legacy, modern, ev, hang, ...faults);
  const upstreams = [
    { id: 'legacy', url: legacy.url },
    { id: 'modern', url: modern.url },
    { id: 'everything', url: ev.url, timeout: 5000 },
    { id: 'slow', url: hang.url, timeout: 300 },
    ...faults.map((f, i) => ({ id: ['broken', 'garbage', 'cut', 'slowsse'][i]!, url: f.url, timeout: 300 })),
  ];
  gw = await startGateway({
    pageSize: 4,
    vars: { UPSTREAMS: JSON.stringify(upstreams), UPSTREAM_ALLOW_HTTP_LOOPBACK: 'true', NOTIFY_COALESCE_MS: 100 },
  });
}, 120_000);

afterAll(async () => {
  await gw?.stop();
  await Promise.all(servers.map((s) => s.close()));
});

describe('aggregation', () => {
  it('the first list waits for never-listed upstreams (each within its timeout) and includes them', async () => {
    const client = await connect();
    const started = Date.now();
    const first = await client.listPrompts();
    const elapsed = Date.now() - started;
    const names = [...first.prompts.map((p) => p.name)];
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await client.listPrompts({ cursor });
      names.push(...page.prompts.map((p) => p.name));
      cursor = page.nextCursor;
    }
    expect(names).toContain('legacy.alpha');
    expect(names).toContain('modern.plan');
    // Five faulty upstreams (hang, 500, garbage, cut stream, slow SSE) cost at most their 300 ms
    // timeout, not a hang: the hanging one never answers, so a list that returns at all was cut
    // by the deadline. The bound only separates "cut" from "hung"; speed is the bench's business.
    expect(elapsed).toBeLessThan(10_000);
    await client.close();
  });
  it('refresh reports each upstream; the hanging one fails within its timeout', async () => {
    const started = Date.now();
    const r = await refresh();
    expect(r.legacy).toMatchObject({ ok: true, prompts: 3 });
    expect(r.modern).toMatchObject({ ok: true, prompts: 2 });
    expect(r.everything!.ok).toBe(true);
    expect(r.slow!.ok).toBe(false);
    expect(r.slow!.error).toMatch(/timeout/);
    expect(r.broken!.error).toMatch(/^http_500: .*500/);
    expect(r.garbage!.error).toMatch(/^invalid_json: /);
    expect(r.slowsse!.error).toMatch(/^timeout: /);
    expect(r.cut!.ok).toBe(false);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
  it('lists local and upstream prompts together, namespaced, page by page', async () => {
    const client = await connect();
    const names = (await listAll(client)).map((p) => p.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'code_review',
        'legacy.alpha',
        'legacy.beta',
        'legacy.gamma',
        'modern.alpha',
        'modern.plan',
      ]),
    );
    expect(names.some((n) => n.startsWith('everything.'))).toBe(true);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^[A-Za-z0-9_.-]{1,64}$/);
    expect([...names].sort()).toEqual(names);
    const beta = (await listAll(client)).find((p) => p.name === 'legacy.beta')!;
    expect(beta._meta?.['dev.promptgate/origin']).toEqual({ upstream: 'legacy', name: 'beta' });
    await client.close();
  });
  it('routes get and complete by name alone, from a client that never listed', async () => {
    const client = await connect();
    const got = await client.getPrompt({ name: 'legacy.beta', arguments: { who: 'world' } });
    expect(got.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'beta world' } }]);
    const modern = await client.getPrompt({ name: 'modern.plan', arguments: { topic: 'launch' } });
    expect(JSON.stringify(modern.messages)).toContain('plan about launch');
    const done = await client.complete({
      ref: { type: 'ref/prompt', name: 'legacy.beta' },
      argument: { name: 'who', value: 'wo' },
    });
    expect(done.completion.values).toEqual(['world', 'wombat']);
    await client.close();
  });
  it('completes a prompt whose upstream offers no completion (SDK v2: -32601 with HTTP 404) with no values, again and again, without opening its breaker', async () => {
    const client = await connect();
    for (let i = 0; i < 6; i++) {
      const none = await client.complete({
        ref: { type: 'ref/prompt', name: 'modern.plan' },
        argument: { name: 'topic', value: 'l' },
      });
      expect(none.completion.values).toEqual([]);
    }
    const got = await client.getPrompt({ name: 'modern.plan', arguments: { topic: 'launch' } });
    expect(JSON.stringify(got.messages)).toContain('plan about launch');
    await client.close();
  });
  it('the catalog page lists upstream prompts and renders one through its upstream', async () => {
    const html = { headers: { accept: 'text/html' } };
    const index = await (await fetch(`${gw.url}/`, html)).text();
    expect(index).toMatch(
      /<li[^>]*data-name="legacy\.beta"[^>]*data-source="legacy"|<li[^>]*data-source="legacy"[^>]*data-name="legacy\.beta"/,
    );
    const page = await fetch(`${gw.url}/p/legacy.beta?who=wombat&render=1`, html);
    expect(page.status).toBe(200);
    // The upstream substituted the argument: the preview is its prompts/get answer, not a local rendering.
    expect(await page.text()).toContain('beta wombat');
    const fragment = await (await fetch(`${gw.url}/p/legacy.beta/preview?who=team`, html)).text();
    expect(fragment).toContain('beta team');
    const values = (await (await fetch(`${gw.url}/p/legacy.beta/complete?argument=who&value=wo`)).json()) as {
      values: string[];
    };
    expect(values.values).toEqual(['world', 'wombat']);
  });
  it('server-everything prompts appear namespaced; get and complete work through the gateway', async () => {
    const client = await connect();
    const names = (await listAll(client)).map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['everything.simple-prompt', 'everything.completable-prompt']));
    const simple = await client.getPrompt({ name: 'everything.simple-prompt' });
    expect(simple.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'This is a simple prompt without arguments.' } },
    ]);
    const dept = await client.complete({
      ref: { type: 'ref/prompt', name: 'everything.completable-prompt' },
      argument: { name: 'department', value: 'E' },
    });
    expect(dept.completion.values).toEqual(['Engineering']);
    // Context travels to the upstream too: the second argument's values depend on the first.
    const lead = await client.complete({
      ref: { type: 'ref/prompt', name: 'everything.completable-prompt' },
      argument: { name: 'name', value: '' },
      context: { arguments: { department: 'Sales' } },
    });
    expect(lead.completion.values).toEqual(['David', 'Eve', 'Frank']);
    await client.close();
  });
  it('maps upstream errors: -32602 stays, a timeout is -32603 naming the upstream', async () => {
    const client = await connect();
    const missing = await client.getPrompt({ name: 'legacy.beta', arguments: {} }).catch((e: McpError) => e);
    expect(missing).toBeInstanceOf(McpError);
    expect((missing as McpError).code).toBe(-32602);
    const started = Date.now();
    const slow = await client.getPrompt({ name: 'slow.anything' }).catch((e: McpError) => e);
    expect((slow as McpError).code).toBe(-32603);
    expect((slow as McpError).message).toMatch(/slow/);
    expect(Date.now() - started).toBeLessThan(3000);
    await client.close();
  });
  it('after repeated failures the circuit opens and answers at once', async () => {
    const client = await connect();
    for (let i = 0; i < 3; i++) await client.getPrompt({ name: 'slow.anything' }).catch(() => undefined);
    const started = Date.now();
    const err = (await client.getPrompt({ name: 'slow.anything' }).catch((e: McpError) => e)) as McpError;
    expect(err.code).toBe(-32603);
    expect(err.message).toMatch(/unavailable.*circuit open/);
    expect(Date.now() - started).toBeLessThan(250);
    await client.close();
  });
  it('GET /status shows each upstream state, counts and errors', async () => {
    const body = (await (await fetch(`${gw.url}/status`)).json()) as {
      upstreams: { id: string; state: string; prompts: number; lastError: string | null }[];
    };
    const by = Object.fromEntries(body.upstreams.map((u) => [u.id, u]));
    expect(by.legacy).toMatchObject({ state: 'healthy', prompts: 3 });
    expect(by.slow!.state).toBe('failing');
    expect(by.slow!.lastError).toMatch(/timeout/);
  });
  it('a failing upstream keeps serving its last good listing, marked stale; healthy ones are unaffected', async () => {
    const legacy = servers[0] as Running & { setFailing: (on: boolean) => void };
    legacy.setFailing(true); // prompts/list now answers -32603
    const r = await refresh();
    expect(r.legacy!.ok).toBe(false);
    expect(r.modern!.ok).toBe(true);
    const client = await connect();
    const listed = await listAll(client);
    const beta = listed.find((p) => p.name === 'legacy.beta')!;
    expect(beta._meta?.['dev.promptgate/origin']).toEqual({ upstream: 'legacy', name: 'beta', stale: true });
    expect(listed.find((p) => p.name === 'modern.plan')!._meta?.['dev.promptgate/origin']).toEqual({
      upstream: 'modern',
      name: 'plan',
    });
    legacy.setFailing(false);
    expect((await refresh()).legacy!.ok).toBe(true);
    expect((await listAll(client)).find((p) => p.name === 'legacy.beta')!._meta?.['dev.promptgate/origin']).toEqual({
      upstream: 'legacy',
      name: 'beta',
    });
    await client.close();
  });
  it('a local prompt that takes an upstream name wins, deterministically, and /status reports it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'promptgate-collide-'));
    cpSync(join(PROJECT_ROOT, 'prompts'), dir, { recursive: true });
    writeFileSync(join(dir, 'clash.md'), '---\nname: legacy.gamma\n---\n## user\nthe local one\n');
    await gw.publish(dir);
    const client = await connect();
    const names = (await listAll(client)).map((p) => p.name);
    expect(names.filter((n) => n === 'legacy.gamma')).toHaveLength(1);
    expect(JSON.stringify((await client.getPrompt({ name: 'legacy.gamma' })).messages)).toContain('the local one');
    const status = (await (await fetch(`${gw.url}/status`)).json()) as { collisions: unknown[] };
    expect(status.collisions).toEqual([{ name: 'legacy.gamma', upstream: 'legacy', winner: 'local' }]);
    await gw.publish(join(PROJECT_ROOT, 'prompts'));
    rmSync(dir, { recursive: true, force: true });
    await client.close();
  });
  it("an upstream's own list_changed is followed: no poll or refresh needed", async () => {
    let changes = 0;
    const client = await counting(() => void changes++);
    expect(changes).toBe(0);
    legacyPrompts.push({ name: 'pushed', text: 'announced by the upstream itself' });
    await (servers[0] as Running & { notifyChanged: () => Promise<void> }).notifyChanged();
    await waitUntil(() => changes > 0, 'list_changed after the upstream announced its change').catch(() => {});
    expect(changes).toBe(1);
    expect((await listAll(client)).map((p) => p.name)).toContain('legacy.pushed');
    await client.close();
  });
  it('an upstream change reaches connected clients once; an unchanged refresh notifies nobody', async () => {
    let changes = 0;
    const client = await counting(() => void changes++);
    expect(changes).toBe(0);
    legacyPrompts.push({ name: 'delta', text: 'new upstream prompt' });
    await refresh();
    // The notification is an event: wait for it however slow the machine. Then a deliberate absence
    // window, not a wait for an event: nothing more may come (load can only hide an extra one, never invent it).
    await waitUntil(() => changes > 0, 'list_changed after the refresh found a change').catch(() => {});
    await new Promise((r) => setTimeout(r, 1200));
    expect(changes).toBe(1);
    expect((await listAll(client)).map((p) => p.name)).toContain('legacy.delta');
    const feed = await feedQuiet(gw.url);
    await refresh();
    // Nothing was queued for announcement (a notification needs one); the absence window as above.
    expect(await feedState(gw.url)).toEqual(feed);
    await new Promise((r) => setTimeout(r, 1200));
    expect(changes).toBe(1);
    await client.close();
  });
  it('the upstream list is managed through the admin API: validated, applied at once, reverted', async () => {
    const auth = { authorization: `Bearer ${gw.adminToken}` };
    const get = async () =>
      (await (await fetch(`${gw.url}/admin/upstreams`, { headers: auth })).json()) as {
        source: string;
        upstreams: { id: string; url: string }[];
      };
    const initial = await get();
    expect(initial.source).toBe('var');
    const put = (body: unknown) =>
      fetch(`${gw.url}/admin/upstreams`, {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const bad = await put([{ id: 'x', url: 'https://10.0.0.1/mcp' }, { id: 'Y' }]);
    expect(bad.status).toBe(422);
    const problems = ((await bad.json()) as { error: { issues: string[] } }).error.issues;
    expect(problems.some((p) => p.startsWith('UPSTREAMS[0].url: private'))).toBe(true);
    expect((await get()).source).toBe('var');
    const client = await connect();
    const onlyLegacy = initial.upstreams.filter((u) => u.id === 'legacy');
    const applied = (await (await put(onlyLegacy)).json()) as {
      removed: string[];
      upstreams: Record<string, { ok: boolean }>;
    };
    expect(applied.removed).toEqual(expect.arrayContaining(['modern', 'everything']));
    expect(Object.keys(applied.upstreams)).toEqual(['legacy']);
    let names = (await listAll(client)).map((p) => p.name);
    expect(names.some((n) => n.startsWith('modern.'))).toBe(false);
    expect(names).toContain('legacy.alpha');
    expect((await get()).source).toBe('admin');
    const reverted = await fetch(`${gw.url}/admin/upstreams`, { method: 'DELETE', headers: auth });
    expect(reverted.status).toBe(200);
    names = (await listAll(client)).map((p) => p.name);
    expect(names).toContain('modern.plan');
    await client.close();
  });
});
