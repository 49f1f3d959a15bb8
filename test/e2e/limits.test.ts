/**
 * Over real HTTP (`wrangler dev`), what only a real connection exercises:
 * chunked bodies without Content-Length, bodies cut short, and the
 * per-client rate limits of wrangler.toml (the
 * [[ratelimits]] bindings, run by Miniflare) with RATE_LIMITS on, and one
 * client's share of a registry shard's streams, by the address wrangler dev gives it.
 *
 * The hostile suite proper runs inside workerd (test/flow/hostile.test.ts);
 * this is its transport-level slice, and the one place the production
 * limits are exercised (every other e2e gateway runs with RATE_LIMITS off).
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACCEPT,
  initialize as initializeRequest,
  postInit,
  SESSION_ID_SHAPE,
  streamHeaders,
} from '../helpers/protocol.js';
import { startGateway, type Gateway } from '../helpers/wrangler-dev.js';

const MAX_BODY = 4096;
/** wrangler.toml: MCP_RATE_LIMIT and ADMIN_AUTH_RATE_LIMIT, per 60 s. */
const MCP_LIMIT = 600;
const AUTH_LIMIT = 10;

let gw: Gateway;
let port: number;

beforeAll(async () => {
  gw = await startGateway({
    // A Worker learns that a stream's client left at its next write, a keepalive when nothing changes: 1 s here.
    vars: {
      MAX_BODY_BYTES: MAX_BODY,
      RATE_LIMITS: 'on',
      REGISTRY_SHARDS: '1',
      SHARD_MAX_CLIENT_STREAMS: '1',
      SSE_KEEPALIVE_MS: '1000',
    },
  });
  port = Number(new URL(gw.url).port);
});

afterAll(async () => {
  await gw?.stop();
});

/** A chunked POST (no Content-Length) of `chunks` × `size` bytes; its status, or the socket error. */
function chunkedPost(chunks: number, size: number, body?: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(
      `${gw.url}/mcp`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: ACCEPT, 'transfer-encoding': 'chunked' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', (e) => resolve(String(e)));
    if (body !== undefined) req.write(body);
    for (let i = 0; i < chunks; i++) req.write('x'.repeat(size));
    req.end();
  });
}

/**
 * Raw bytes on a fresh connection, half-closed after writing (a body cut short); the
 * status line, or what happened.
 */
function raw(text: string): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => {
      s.write(text);
      s.end();
    });
    let out = '';
    s.on('data', (d) => (out += d.toString()));
    s.on('close', () => resolve(out.split('\r\n')[0] ?? ''));
    s.on('error', (e) => resolve(String(e)));
  });
}

const POST_HEAD = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: ${ACCEPT}\r\n`;

const initialize = () => fetch(gw.mcpUrl, postInit(initializeRequest()));

const workerErrors = () =>
  gw
    .output()
    .split('\n')
    .filter((l) => l.includes('"msg":"unhandled error"'));

describe('transport over real HTTP', () => {
  it('a chunked POST over MAX_BODY_BYTES gets 413, and the next request from another client is served', async () => {
    for (let round = 0; round < 5; round++) {
      expect(await chunkedPost(64, 1024)).toBe(413);
      const next = await initialize();
      expect(next.status, `round ${round}`).toBe(200);
      expect(next.headers.get('mcp-session-id')).toMatch(SESSION_ID_SHAPE);
      await next.body?.cancel();
    }
  });

  it('a chunked initialize under the limit is served', async () => {
    const body = JSON.stringify(initializeRequest());
    expect(await chunkedPost(0, 0, body)).toBe(200);
  });

  it('bodies cut short (Content-Length or chunked) are never a Worker error, and the next request is served', async () => {
    const cut = [
      `${POST_HEAD}Content-Length: 100\r\n\r\n{"jsonrpc":"2.0","id":1,`,
      `${POST_HEAD}Transfer-Encoding: chunked\r\n\r\n10\r\n{"jsonrpc":"2.0"`,
      `${POST_HEAD}Transfer-Encoding: chunked\r\n\r\n400\r\n{"jsonrpc":"2.0"`,
    ];
    for (const text of cut) {
      // The client is gone by the time an answer exists: 400 when it still arrives, the proxy's 503 when not.
      expect(['HTTP/1.1 400 Bad Request', 'HTTP/1.1 503 Service Unavailable']).toContain(await raw(text));
      const next = await initialize();
      expect(next.status).toBe(200);
      await next.body?.cancel();
    }
    expect(workerErrors()).toEqual([]);
  });
});

describe("one client's streams at a registry shard (SHARD_MAX_CLIENT_STREAMS 1, one shard)", () => {
  it('holds its first GET stream, and its second gets 429 -32000 with Retry-After until the first closes', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) ids.push((await initialize()).headers.get('mcp-session-id')!);
    const first = new AbortController();
    const held = await fetch(gw.mcpUrl, { headers: streamHeaders(ids[0]!), signal: first.signal });
    expect(held.status).toBe(200);
    const reader = held.body!.getReader();
    await reader.read(); // the retry hint: the shard has taken the socket
    const refused = await fetch(gw.mcpUrl, { headers: streamHeaders(ids[1]!) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    first.abort();
    await reader.cancel().catch(() => {});
    // The client went away: once its Worker has noticed (at its next keepalive) and closed its socket at
    // the shard, the other session's stream is taken.
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      const again = await fetch(gw.mcpUrl, { headers: streamHeaders(ids[1]!), signal: AbortSignal.timeout(5_000) });
      status = again.status;
      await again.body?.cancel();
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
  });
});

describe('rate limits (wrangler.toml values)', () => {
  it('wrong admin tokens get 429 with Retry-After, then the client is locked out even with the right token', async () => {
    const statuses: number[] = [];
    // One character off each time (the token is hex: g-p never match). Fixed windows: two of
    // them admit at most 2 × the limit before a 429.
    for (let i = 0; i <= 2 * AUTH_LIMIT && !statuses.includes(429); i++) {
      const res = await fetch(`${gw.url}/admin/prompts`, {
        headers: { authorization: `Bearer ${gw.adminToken.slice(0, -1)}${'ghijklmnop'[i % 10]}` },
      });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.headers.get('retry-after')).toBe('60');
        expect(((await res.json()) as any).error.code).toBe('locked_out');
      } else await res.body?.cancel();
    }
    expect(statuses.at(-1)).toBe(429);
    expect(new Set(statuses.slice(0, -1))).toEqual(new Set([401]));
    const right = await fetch(`${gw.url}/admin/prompts`, { headers: { authorization: `Bearer ${gw.adminToken}` } });
    expect(right.status).toBe(429);
    // /mcp has its own limit.
    expect((await initialize()).status).toBe(200);
  });

  /** Cheap /mcp requests (bad JSON, answered 400 after the limiter) in parallel batches until one is refused. */
  async function exhaustMcp(): Promise<{ sent: number; limited: Response | undefined }> {
    let sent = 0;
    let limited: Response | undefined;
    // At most 2 × the limit + 1: fixed windows, so two of them admit at most 2 × the limit.
    while (!limited && sent <= 2 * MCP_LIMIT) {
      const batch = await Promise.all(
        Array.from({ length: 25 }, () =>
          fetch(gw.mcpUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: ACCEPT },
            body: 'x',
          }),
        ),
      );
      sent += batch.length;
      for (const r of batch) {
        expect([400, 429]).toContain(r.status);
        if (r.status === 429 && !limited) limited = r;
        else await r.body?.cancel();
      }
    }
    return { sent, limited };
  }

  it('a burst on /mcp gets 429 -32000 with Retry-After; the same budget then holds /status, the pages and credentialed listings, not an anonymous GET /prompts', async () => {
    const { sent, limited } = await exhaustMcp();
    expect(limited?.status, `no 429 after ${sent} requests`).toBe(429);
    expect(limited!.headers.get('retry-after')).toBe('60');
    const body = (await limited!.json()) as any;
    expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    expect(body.error.message).toMatch(/Too Many Requests/);
    // Over budget, an allowed browser can read its 429 (CORS), and a disallowed origin still meets the Origin rule first.
    const fromBrowser = (origin: string) =>
      fetch(gw.mcpUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: ACCEPT, origin },
        body: 'x',
      });
    let allowed = await fromBrowser('http://localhost:5173');
    if (allowed.status !== 429) {
      await allowed.body?.cancel();
      expect((await exhaustMcp()).limited?.status).toBe(429);
      allowed = await fromBrowser('http://localhost:5173');
    }
    expect(allowed.status).toBe(429);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(allowed.headers.get('access-control-expose-headers')).toMatch(/retry-after/i);
    await allowed.body?.cancel();
    const evil = await fromBrowser('https://evil.example');
    expect(evil.status).toBe(403);
    await evil.body?.cancel();
    // An anonymous listing is served from caches and not counted; the same budget covers /status, the
    // catalog pages and any listing that presents a credential (each unknown one is a lookup).
    expect((await fetch(`${gw.url}/prompts`)).status).toBe(200);
    for (const [path, headers] of [
      ['/status', {}],
      ['/', { accept: 'text/html' }],
      ['/prompts', { authorization: 'Bearer pg_not-a-key' }],
    ] as const) {
      let res = await fetch(gw.url + path, { headers });
      if (res.status !== 429) {
        // The 60 s window may have turned over since the burst: spend the budget again and ask once more.
        // A path outside the budget is still answered, and fails below.
        await res.body?.cancel();
        expect((await exhaustMcp()).limited?.status).toBe(429);
        res = await fetch(gw.url + path, { headers });
      }
      expect(res.status, path).toBe(429);
      expect(res.headers.get('retry-after')).toBe('60');
      expect(await res.json()).toMatchObject({ error: { code: 'rate_limited' } });
    }
    console.log(`rate limit: first 429 after ${sent} /mcp requests (limit ${MCP_LIMIT} per 60 s)`);
  });
});
