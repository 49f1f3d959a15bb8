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
import { feedQuiet, streamWatch, waitUntil } from '../helpers/live.js';
import { openSessionWith, streamHeaders } from '../helpers/protocol.js';
import { readEvents, type SseFrame } from '../helpers/sse.js';
import { PROJECT_ROOT, startGateway, type Gateway } from '../helpers/wrangler-dev.js';

let gw: Gateway;
let dir: string;

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
  writeFileSync(
    join(dir, `${name}.md`),
    `---\nname: ${name}\ndescription: added by a test\n---\n## user\nHello from ${name}\n`,
  );
}

/** An SDK client whose GET stream is open at the gateway when this resolves. */
async function connectClient(
  onListChanged: () => void,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'live-e2e', version: '1.0.0' });
  client.setNotificationHandler(PromptListChangedNotificationSchema, onListChanged);
  const watch = streamWatch();
  const transport = new StreamableHTTPClientTransport(new URL(gw.mcpUrl), { fetch: watch.fetch });
  await client.connect(transport);
  await watch.attached();
  return { client, transport };
}

const initSession = async (): Promise<string> => (await openSessionWith(fetch, gw.mcpUrl)).id;

function openStream(session: string, lastEventId?: string, signal?: AbortSignal) {
  return fetch(gw.mcpUrl, { headers: streamHeaders(session, '2025-11-25', lastEventId), signal }).then(readEvents);
}

describe('SDK clients', () => {
  it('two sessions each receive list_changed once per publish, then see the new prompt', async () => {
    let a = 0;
    let b = 0;
    // The start-up publish is fanned out before either client exists, and both GET streams are
    // open before the next publish (events, not delays): counts start from zero.
    await feedQuiet(gw.url);
    const one = await connectClient(() => a++);
    const two = await connectClient(() => b++);
    expect([a, b]).toEqual([0, 0]);
    addPrompt('live_added_one');
    await gw.publish(dir);
    await waitUntil(() => a === 1 && b === 1, 'one list_changed on each client');
    const names = (await one.client.listPrompts()).prompts.map((p) => p.name);
    expect(names).toContain('live_added_one');
    addPrompt('live_added_two');
    await gw.publish(dir);
    await waitUntil(() => a === 2 && b === 2, 'a second list_changed on each client');
    // A deliberate absence window, not a wait for an event: nothing more may arrive. Load can only
    // hide an extra notification here, never invent one.
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
    expect((await first.next()).retry, 'SSE_RETRY_MS in wrangler.toml').toBe(3000);
    const priming = await first.next();
    expect(priming.data).toBe('');
    ctl.abort();
    addPrompt('live_added_resume');
    await gw.publish(dir);
    // Wait for the fan-out (an event, not a guessed delay), then resume: the session replays what it missed.
    const seen = await witness.nextMessage(20_000);
    expect(seen.message.method).toBe('notifications/prompts/list_changed');
    await witness.close();
    const resumed = await openStream(session, priming.id);
    const { id, message } = await resumed.nextMessage(20_000);
    expect(message).toEqual({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed' });
    // Ids are `<stream key>.<catalog generation>`: this stream's key, the change's generation.
    expect(id).toBe(priming.id!.replace(/\.\d+$/, seen.id!.slice(seen.id!.lastIndexOf('.'))));
    await resumed.close();
  });
  it('keepalive comments arrive, and DELETE ends the stream', async () => {
    const session = await initSession();
    const stream = await openStream(session);
    // Past the retry hint and the priming event, within bounded reads: the comments are keepalives.
    const comments: SseFrame[] = [];
    for (let i = 0; i < 10 && comments.length < 2; i++) {
      const f = await stream.next(10_000);
      if (f.comment !== undefined) comments.push(f);
    }
    expect(comments).toEqual([{ comment: 'keepalive' }, { comment: 'keepalive' }]);
    const del = await fetch(gw.mcpUrl, { method: 'DELETE', headers: { 'mcp-session-id': session } });
    expect(del.status).toBe(200);
    expect(await stream.ended(10_000)).toBe(true);
  });
});
