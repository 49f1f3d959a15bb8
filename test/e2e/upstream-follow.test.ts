/**
 * The gateway's follow loops on upstream change streams, against real SDK
 * v1 upstreams (sessionful, standalone GET stream) through `wrangler dev`,
 * with the poll out of the way (60 s): a dropped stream re-lists at once,
 * a configuration change moves or ends each follow loop at once, and a
 * removed upstream is not reconnected to. Every wait is for an event
 * (stream counts on the upstream, /status, the list), bounded.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../helpers/live.js';
import { legacyServer, type LegacyPrompt } from '../helpers/upstreams.js';
import { startGateway, type Gateway } from '../helpers/wrangler-dev.js';

type Upstream = Awaited<ReturnType<typeof legacyServer>>;
let gw: Gateway;
let a: Upstream;
let b: Upstream;
let c: Upstream;
let d: Upstream;
const bPrompts: LegacyPrompt[] = [{ name: 'two', text: 'b two' }];

const waitFor = (what: string, cond: () => boolean | Promise<boolean>) => waitUntil(cond, what);

async function status(): Promise<Record<string, { state: string; fault: string | null; lastError: string | null }>> {
  const body = (await (await fetch(`${gw.url}/status`)).json()) as {
    upstreams: { id: string; state: string; fault: string | null; lastError: string | null }[];
  };
  return Object.fromEntries(body.upstreams.map((u) => [u.id, u]));
}

async function putUpstreams(list: unknown[]): Promise<void> {
  const res = await fetch(`${gw.url}/admin/upstreams`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${gw.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(list),
  });
  expect(res.status).toBe(200);
}

async function names(): Promise<string[]> {
  const client = new Client({ name: 'follow-e2e', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl)));
  const { prompts } = await client.listPrompts();
  await client.close();
  return prompts.map((p) => p.name);
}

beforeAll(async () => {
  a = await legacyServer([{ name: 'one', text: 'a one' }]);
  b = await legacyServer(bPrompts);
  c = await legacyServer([{ name: 'three', text: 'c three' }]);
  d = await legacyServer([{ name: 'four', text: 'd four' }]);
  const upstreams = [
    { id: 'moving', url: a.url, timeout: 1000 },
    { id: 'dying', url: c.url, timeout: 1000 },
    { id: 'leaving', url: d.url, timeout: 1000 },
  ];
  gw = await startGateway({
    vars: { UPSTREAMS: JSON.stringify(upstreams), UPSTREAM_ALLOW_HTTP_LOOPBACK: 'true', UPSTREAM_POLL_MS: 60_000 },
  });
}, 120_000);

afterAll(async () => {
  await gw?.stop();
  await Promise.all([a, b, c, d].map((s) => s?.close()));
});

describe('follow loops', () => {
  it('after the first list, each upstream change stream is followed', async () => {
    expect(await names()).toEqual(expect.arrayContaining(['moving.one', 'dying.three', 'leaving.four']));
    await waitFor('every change stream open', () => a.streams() === 1 && c.streams() === 1 && d.streams() === 1);
  });

  it('a dropped change stream re-lists at once: a dead upstream does not read healthy until the poll', async () => {
    expect((await status()).dying!.state).toBe('healthy');
    await c.close();
    await waitFor('dying is no longer healthy', async () => (await status()).dying!.state !== 'healthy');
    const s = (await status()).dying!;
    expect(s.state).toBe('stale');
    expect(s.fault).toBe('unreachable');
  });

  it('moving an upstream id to a new URL follows the new server at once and lets go of the old one', async () => {
    await putUpstreams([
      { id: 'moving', url: b.url, timeout: 1000 },
      { id: 'dying', url: c.url, timeout: 1000 },
      { id: 'leaving', url: d.url, timeout: 1000 },
    ]);
    await waitFor('the old stream closed and the new one open', () => a.streams() === 0 && b.streams() === 1);
    bPrompts.push({ name: 'two_more', text: 'b two more' });
    await b.notifyChanged();
    await waitFor('the change on the new server is listed (no poll)', async () =>
      (await names()).includes('moving.two_more'),
    );
    expect({ old: a.streams(), now: b.streams() }).toEqual({ old: 0, now: 1 });
    expect(await names()).toContain('moving.two_more');
  });

  it('a removed upstream stops being followed at once and is not reconnected to', async () => {
    expect(d.streams()).toBe(1);
    await putUpstreams([
      { id: 'moving', url: b.url, timeout: 1000 },
      { id: 'dying', url: c.url, timeout: 1000 },
    ]);
    await waitFor('the removed upstream stream closed', () => d.streams() === 0);
    // A deliberate absence window, not a wait for an event: reconnects come after 1 s at most, so
    // 2.5 s without one is the proof (load can only delay a wrong reconnect past it, never invent one).
    await new Promise((r) => setTimeout(r, 2500));
    expect(d.streams()).toBe(0);
    expect(await names()).not.toContain('leaving.four');
  });
});
