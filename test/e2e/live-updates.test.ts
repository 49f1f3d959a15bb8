/**
 * Live updates end to end: SDK clients against `wrangler dev` receive
 * notifications/prompts/list_changed after a publish through the admin API,
 * and raw SSE streams resume with Last-Event-ID, carry keepalives and end
 * with their session.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PromptListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEvents } from '../helpers/sse.js';
import { PROJECT_ROOT, startGateway, type Gateway } from '../helpers/wrangler-dev.js';

let gw: Gateway;
let dir: string;
const ACCEPT = 'application/json, text/event-stream';

beforeAll(async () => {
  gw = await startGateway({ vars: { SSE_KEEPALIVE_MS: 400, NOTIFY_COALESCE_MS: 100 } });
  dir = mkdtempSync(join(tmpdir(), 'promptgate-live-'));
  cpSync(join(PROJECT_ROOT, 'prompts'), dir, { recursive: true });
});

afterAll(async () => {
  await gw?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function addPrompt(name: string): void {
  writeFileSync(join(dir, `${name}.md`), `---\nname: ${name}\ndescription: added by a test\n---\n## user\nHello from ${name}\n`);
}

async function connectClient(onListChanged: () => void): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'live-e2e', version: '1.0.0' });
  client.setNotificationHandler(PromptListChangedNotificationSchema, onListChanged);
  const transport = new StreamableHTTPClientTransport(new URL(gw.mcpUrl));
  await client.connect(transport);
  return { client, transport };
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function initSession(): Promise<string> {
  const res = await fetch(gw.mcpUrl, {
    method: 'POST',
    headers: { accept: ACCEPT, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  return res.headers.get('mcp-session-id')!;
}

function openStream(session: string, lastEventId?: string, signal?: AbortSignal) {
  const headers: Record<string, string> = { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
  if (lastEventId) headers['last-event-id'] = lastEventId;
  return fetch(gw.mcpUrl, { headers, signal }).then(readEvents);
}

describe('SDK clients', () => {
  it('two sessions each receive list_changed once per publish, then see the new prompt', async () => {
    let a = 0;
    let b = 0;
    const one = await connectClient(() => a++);
    const two = await connectClient(() => b++);
    // The SDK opens its GET stream after initialize. Let both attach and let the start-up
    // publish finish its (coalesced, slightly delayed) fan-out, then count from zero.
    await new Promise((r) => setTimeout(r, 1500));
    a = 0;
    b = 0;
    addPrompt('live_added_one');
    await gw.publish(dir);
    await until(() => a === 1 && b === 1, 20_000);
    const names = (await one.client.listPrompts()).prompts.map((p) => p.name);
    expect(names).toContain('live_added_one');
    addPrompt('live_added_two');
    await gw.publish(dir);
    await until(() => a === 2 && b === 2, 20_000);
    // Nothing more: a quiet window can only hide an extra notification on a slow machine, never invent one.
    await new Promise((r) => setTimeout(r, 700));
    expect([a, b]).toEqual([2, 2]);
    await one.transport.terminateSession();
    await two.transport.terminateSession();
    await one.client.close();
    await two.client.close();
  });
});

describe('raw streams over HTTP', () => {
  it('resume with Last-Event-ID replays the missed notification', async () => {
    const session = await initSession();
    // A second session's open stream witnesses the fan-out (the same alarm delivers to both).
    const witness = await openStream(await initSession());
    await witness.next();
    await witness.next();
    const ctl = new AbortController();
    const first = await openStream(session, undefined, ctl.signal);
    expect((await first.next()).retry).toBeGreaterThan(0);
    const priming = await first.next();
    expect(priming.data).toBe('');
    ctl.abort();
    addPrompt('live_added_resume');
    await gw.publish(dir);
    // Wait for the fan-out (an event, not a guessed delay), then resume: the session replays what it missed.
    expect((await witness.nextMessage(20_000)).message.method).toBe('notifications/prompts/list_changed');
    await witness.close();
    const resumed = await openStream(session, priming.id);
    const { id, message } = await resumed.nextMessage(20_000);
    expect(message).toEqual({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed' });
    expect(id).toBe(priming.id!.replace(/\.0$/, '.1'));
    await resumed.close();
  });
  it('keepalive comments arrive, and DELETE ends the stream', async () => {
    const session = await initSession();
    const stream = await openStream(session);
    let comments = 0;
    while (comments < 2) if ((await stream.next(10_000)).comment === 'keepalive') comments++;
    const del = await fetch(gw.mcpUrl, { method: 'DELETE', headers: { 'mcp-session-id': session } });
    expect(del.status).toBe(200);
    expect(await stream.ended(10_000)).toBe(true);
  });
});
