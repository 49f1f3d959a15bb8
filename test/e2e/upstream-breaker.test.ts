/**
 * End-to-end, the circuit breaker of one upstream (src/catalog/upstreams/breaker.ts) is the
 * upstream's health, not one caller's: an upstream that refuses a request for what it carries (HTTP
 * 413, as a server with a body limit does) answers that caller with -32603 naming the upstream, and
 * every other call still goes through; one prompt slower than the timeout fails alone.
 * A real `wrangler dev`, a scripted upstream, the official SDK client.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BREAKER_THRESHOLD } from '../../src/catalog/upstreams/breaker.js';
import { scriptedServer, type Scripted } from '../helpers/fault-servers.js';
import { faultyServer, sseServer, type Running } from '../helpers/upstreams.js';
import { startGateway, type Gateway } from '../helpers/wrangler-dev.js';

const SSE_TIMEOUT_MS = 1000;

let gw: Gateway;
let upstream: Scripted;
let jsonErrors: Scripted;
let hang: Running;
let sse: Running;

beforeAll(async () => {
  upstream = await scriptedServer({
    prompts: [{ name: 'big' }, { name: 'small' }],
    getStatus: (name) => (name === 'big' ? 413 : undefined),
  });
  // The same refusal with a JSON body that is not a JSON-RPC error (as some HTTP servers answer).
  jsonErrors = await scriptedServer({
    prompts: [{ name: 'big' }],
    getStatus: () => 413,
    getStatusBody: { error: 'Payload Too Large' },
  });
  hang = await faultyServer('hang');
  // HTTP+SSE (2024-11-05): every reply comes back on one stream. `held` is never answered; `slow` in 300 ms.
  sse = await sseServer(['held', 'slow'], { hold: 'held', slow: 'slow' });
  gw = await startGateway({
    vars: {
      UPSTREAMS: JSON.stringify([
        { id: 'sc', url: upstream.url, prefix: 'sc', timeout: 3000 },
        { id: 'js', url: jsonErrors.url, prefix: 'js', timeout: 3000 },
        { id: 'hang', url: hang.url, prefix: 'hang', timeout: 500 },
        { id: 'sse', url: sse.url, prefix: 'sse', timeout: SSE_TIMEOUT_MS },
      ]),
      UPSTREAM_ALLOW_HTTP_LOOPBACK: 'true',
    },
  });
}, 120_000);

afterAll(async () => {
  await gw?.stop();
  await upstream?.close();
  await jsonErrors?.close();
  await hang?.close();
  await sse?.close();
});

it("an upstream refusing one caller's requests (413) does not open its breaker for every other call", async () => {
  const client = new Client({ name: 'breaker', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl)));
  try {
    for (let i = 0; i < BREAKER_THRESHOLD + 2; i++) {
      const refused = client.getPrompt({ name: 'sc.big' });
      await expect(refused).rejects.toThrow(/Upstream "sc" failed: http_413/);
    }
    const served = await client.getPrompt({ name: 'sc.small' });
    expect(served.messages[0]?.content).toEqual({ type: 'text', text: 'scripted small' });
    // A JSON body that is no JSON-RPC error is still the HTTP refusal, named as such.
    await expect(client.getPrompt({ name: 'js.big' })).rejects.toThrow(/Upstream "js" failed: http_413/);
  } finally {
    await client.close();
  }
});

it('calls that fail together (an upstream that stopped answering) count as one failure, not one each', async () => {
  const client = new Client({ name: 'breaker-burst', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl)));
  try {
    // More calls at once than the threshold, all waiting on one connection to the silent upstream.
    const burst = await Promise.allSettled(
      Array.from({ length: BREAKER_THRESHOLD + 2 }, () => client.getPrompt({ name: 'hang.x' })),
    );
    for (const r of burst) {
      expect(r.status).toBe('rejected');
      expect(String((r as PromiseRejectedResult).reason)).toMatch(/did not answer within 500 ms/);
    }
    // One failure so far: the next call is still made (and times out), not refused by an open circuit.
    await expect(client.getPrompt({ name: 'hang.x' })).rejects.toThrow(/did not answer within 500 ms/);
  } finally {
    await client.close();
  }
});

it("one prompt slower than the timeout fails alone: other callers' calls on the same connection finish, and the breaker stays closed", async () => {
  const client = new Client({ name: 'breaker-slow', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl)));
  const after = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const slow = async (waitMs: number) => {
    await after(waitMs);
    const got = await client.getPrompt({ name: 'sse.slow' });
    expect(got.messages[0]?.content).toEqual({ type: 'text', text: 'sse slow' });
  };
  try {
    await slow(0);
    for (let i = 0; i < BREAKER_THRESHOLD + 1; i++) {
      const held = client.getPrompt({ name: 'sse.held' });
      const timedOut = expect(held).rejects.toThrow(new RegExp(`did not answer within ${SSE_TIMEOUT_MS} ms`));
      // One answered while the held call runs (the upstream is up), and one still under way when it times out.
      await Promise.all([timedOut, slow(100), slow(SSE_TIMEOUT_MS - 200)]);
    }
    // However many times the one prompt timed out, the upstream's circuit is closed.
    await slow(0);
  } finally {
    await client.close();
  }
});
