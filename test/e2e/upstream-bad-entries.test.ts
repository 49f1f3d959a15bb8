/**
 * End-to-end, an upstream whose prompts/list carries entries that are no prompt at all (`null`, a
 * number, a string, an array, a nameless object) beside a good one. Listings are untrusted
 * (src/catalog/upstreams/sanitize.ts): one bad entry must cost neither the endpoint nor the rest of
 * its own listing, on both paths that list an upstream: the read path's cold branch (a first
 * prompts/list, with the local prompts beside it) and the upstream's own object (its refresh, and
 * /status after it). Beside it, an upstream whose listing is a JSON-RPC error with a 3 MB message:
 * it is marked failing, its message kept short wherever it goes. A real `wrangler dev`, the scripted
 * upstreams of test/helpers/fault-servers.ts.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { scriptedServer, type Scripted } from '../helpers/fault-servers.js';
import { coldUpstreamGateway } from '../helpers/cold-upstream.js';
import type { Gateway } from '../helpers/wrangler-dev.js';

/** What a careless or hostile upstream may send: only `ok` is a prompt. */
const ENTRIES = [null, 42, 'loose', ['x'], { name: 7 }, { description: 'nameless' }, { name: 'ok' }];

let gw: Gateway;
let upstream: Scripted;
let loud: Scripted;

beforeAll(async () => {
  upstream = await scriptedServer({ prompts: ENTRIES as Record<string, unknown>[] });
  loud = await scriptedServer({ prompts: [{ name: 'p' }], list: 'bigerror' });
  gw = await coldUpstreamGateway([
    { id: 'up', url: upstream.url },
    { id: 'loud', url: loud.url },
  ]);
}, 120_000);

afterAll(async () => {
  await gw?.stop();
  await upstream?.close();
  await loud?.close();
});

it('a cold prompts/list serves the local prompts and the upstream’s good entry', async () => {
  const client = new Client({ name: 'bad-entries', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl)));
  try {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['summarize', 'up.ok']);
  } finally {
    await client.close();
  }
});

it('the upstream’s own object lists it too: its refresh is ok and /status shows it healthy', async () => {
  const res = await fetch(`${gw.url}/admin/upstreams/refresh`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.adminToken}` },
  });
  expect(res.status).toBe(200);
  expect(((await res.json()) as { upstreams: Record<string, unknown> }).upstreams.up).toMatchObject({
    ok: true,
    prompts: 1,
  });
  const status = (await (await fetch(`${gw.url}/status`)).json()) as { upstreams: { id: string }[] };
  expect(status.upstreams.find((u) => u.id === 'up')).toMatchObject({ state: 'healthy', prompts: 1 });
});

it('an upstream whose listing fails with a 3 MB message is marked failing, its message cut short', async () => {
  const res = await fetch(`${gw.url}/admin/upstreams/refresh`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.adminToken}` },
  });
  expect(res.status).toBe(200);
  const refreshed = ((await res.json()) as { upstreams: Record<string, { ok: boolean; error?: string }> }).upstreams;
  expect(refreshed.loud).toMatchObject({ ok: false, error: expect.stringMatching(/^rpc_error: x+…$/) });
  expect(refreshed.loud!.error!.length).toBeLessThan(1_100);
  const status = (await (await fetch(`${gw.url}/status`)).json()) as {
    upstreams: { id: string; state: string; lastError?: string }[];
  };
  const row = status.upstreams.find((u) => u.id === 'loud');
  expect(row).toMatchObject({ state: 'failing', lastError: expect.stringMatching(/^rpc_error: x+…$/) });
  expect(row!.lastError!.length).toBeLessThan(1_100);
  // The other upstream's listing went through beside it.
  expect(status.upstreams.find((u) => u.id === 'up')).toMatchObject({ state: 'healthy', prompts: 1 });
});
