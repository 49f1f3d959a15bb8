/**
 * A downstream client's cancel reaches the upstream (docs/upstreams.md, "Cancellation"): a real
 * `wrangler dev` aggregating an SDK v1 session-era upstream whose prompt `slow` answers only once
 * cancelled. A 2025-11-25 SDK client that aborts its get (the SDK sends `notifications/cancelled`)
 * makes the gateway close the upstream request and send `notifications/cancelled` naming the
 * upstream's own request id, and gets no response for it. A cancel naming another session's call,
 * an unknown id or a finished call changes nothing. A 2025-03-26 batch whose only request is
 * cancelled is answered with an empty event stream (a POST holding a request is never a 202), and
 * its log line says -32800, not a success. (A 2026-07-28 client's closed request is not
 * tested here: local `wrangler dev` does not abort the request's signal when a client leaves before
 * the response starts. test/flow/cancel-modern.test.ts aborts the signal itself, and
 * test/node/upstream-cancel.test.ts covers the upstream client's half.)
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { waitUntil } from '../helpers/live.js';
import { LEGACY, openSessionWith, postInit } from '../helpers/protocol.js';
import { legacyServer } from '../helpers/upstreams.js';
import { startGateway, type Gateway } from '../helpers/wrangler-dev.js';

let gw: Gateway;
let upstream: Awaited<ReturnType<typeof legacyServer>>;

beforeAll(async () => {
  upstream = await legacyServer(
    [
      { name: 'slow', text: 'never' },
      { name: 'quick', text: 'quick' },
    ],
    2,
    { hold: 'slow' },
  );
  // A timeout far past the test's waits: whatever ends the upstream call here is the cancel.
  const upstreams = [{ id: 'up', url: upstream.url, timeout: 60_000 }];
  gw = await startGateway({ vars: { UPSTREAMS: JSON.stringify(upstreams), UPSTREAM_ALLOW_HTTP_LOOPBACK: 'true' } });
}, 120_000);

afterAll(async () => {
  await gw?.stop();
  await upstream?.close();
});

/** The upstream's record of the next held get, once it arrived. */
async function nextHeld(before: number) {
  await waitUntil(() => upstream.held.length > before, 'the get reached the upstream', 15_000);
  return upstream.held[before]!;
}

const settle = () => new Promise((r) => setTimeout(r, 500));

it('a 2025-11-25 SDK client that aborts its get sends notifications/cancelled on; other cancels change nothing', async () => {
  const gets: { id: unknown; reply: Promise<string> }[] = [];
  // Recorded as each get is sent, not when its answer begins: a held call's answer begins only once
  // it ends, and its id is wanted while it is held.
  const recording = (url: string | URL, init?: RequestInit) => {
    const res = fetch(url, init);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { id?: unknown; method?: string }) : {};
    // Cloned before the client reads the body: this callback was registered first.
    if (body.method === 'prompts/get') gets.push({ id: body.id, reply: res.then((r) => r.clone().text()) });
    return res;
  };
  const client = new Client({ name: 'cancel-e2e', version: '1' });
  const errors: Error[] = [];
  client.onerror = (e) => void errors.push(e);
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl), { fetch: recording }));
  try {
    // A finished call's id cancels nothing.
    await client.getPrompt({ name: 'up.quick' });
    const before = upstream.held.length;
    const ctl = new AbortController();
    const got = client.getPrompt({ name: 'up.slow' }, { signal: ctl.signal });
    got.catch(() => undefined);
    const held = await nextHeld(before);
    const ownId = gets.at(-1)!.id;
    // Another session naming this call's id, and this session naming unknown or finished ids: ignored.
    const other = await openSessionWith(fetch, gw.mcpUrl);
    const cancel = (requestId: unknown, session: string) =>
      fetch(
        gw.mcpUrl,
        postInit(
          { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'not yours' } },
          { session, version: LEGACY },
        ),
      );
    expect((await cancel(ownId, other.id)).status).toBe(202);
    const mine = client.transport as StreamableHTTPClientTransport;
    expect((await cancel(987_654, mine.sessionId!)).status).toBe(202);
    expect((await cancel(gets[0]!.id, mine.sessionId!)).status).toBe(202);
    expect((await cancel({ nested: true }, mine.sessionId!)).status).toBe(202);
    await settle();
    expect(held.cancelled, 'no other cancel reached the call').toBeUndefined();

    ctl.abort('changed my mind');
    await expect(got).rejects.toThrow();
    await waitUntil(() => held.cancelled !== undefined, 'the upstream received notifications/cancelled', 15_000);
    expect(held.cancelled).toBe('the request was cancelled by its client');
    // The cancelled request's POST ends with no JSON-RPC response on it.
    expect(await gets.at(-1)!.reply).toBe('');
    // The session goes on.
    expect((await client.getPrompt({ name: 'up.quick' })).messages).toHaveLength(1);
    expect(errors.map(String)).toEqual([]);
  } finally {
    await client.close();
  }
});

it('a 2025-03-26 batch whose request is cancelled is answered empty, and its log line says -32800', async () => {
  const session = await openSessionWith(fetch, gw.mcpUrl, '2025-03-26');
  const opts = { session: session.id, version: session.version };
  const before = upstream.held.length;
  const batch = fetch(
    gw.mcpUrl,
    postInit([{ jsonrpc: '2.0', id: 'b1', method: 'prompts/get', params: { name: 'up.slow' } }], opts),
  );
  const held = await nextHeld(before);
  const note = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'b1', reason: 'gone' } };
  expect((await fetch(gw.mcpUrl, postInit(note, opts))).status).toBe(202);
  const res = await batch;
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  expect(await res.text()).toBe('');
  await waitUntil(() => held.cancelled !== undefined, 'the upstream received notifications/cancelled', 15_000);
  await waitUntil(
    () =>
      gw
        .output()
        .split('\n')
        .some((l) => l.includes('"msg":"request"') && l.includes('"error.type":"-32800"')),
    "the request's log line names the call cancelled",
    15_000,
  );
});
