/**
 * Streamable HTTP transport rules (legacy era): every rejection asserts both
 * the HTTP status and the JSON-RPC code the spec checklist assigns. The
 * stateless error matrix is the shared table in test/helpers/transport-cases.ts
 * (also run over real HTTP by test/e2e/legacy-sdk.test.ts); the cases here
 * need a session, a configured limit, or a success alongside the error.
 */
import { SELF } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { expectTransportCase, TRANSPORT_CASES } from '../helpers/transport-cases.js';
import { ACCEPT, expectError, MCP_URL, openSession, post, publish, request } from '../helpers/worker.js';
import { MAX_BATCH } from '../../src/rpc/legacy.js';
import { postHeaders, postInit } from '../helpers/protocol.js';

beforeAll(async () => {
  await publish(FIXTURE_PROMPTS);
});

describe('the transport error matrix (shared with the e2e suite)', () => {
  it.each(TRANSPORT_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) =>
    expectTransportCase((u, i) => SELF.fetch(u, i), MCP_URL, c),
  );
});

describe('POST headers', () => {
  it('reads Accept case-insensitively, by media type', async () => {
    const init = request('initialize', { protocolVersion: '2025-11-25' });
    expect((await post(init, { headers: { accept: 'Application/JSON; q=0.9, Text/Event-Stream' } })).status).toBe(200);
  });
  it('406 -32000 when Accept weights a needed type q=0 (RFC 9110 §12.5.1: not acceptable), as when it is missing', async () => {
    const init = request('initialize', { protocolVersion: '2025-11-25' });
    for (const accept of [
      'application/json, text/event-stream;q=0',
      'application/json;Q=0.000, text/event-stream',
      'application/json, text/event-stream ; q = 0.',
    ])
      await expectError(await post(init, { headers: { accept } }), 406, -32000);
    // A weight that is not zero, or a zero one on some other range, still accepts.
    for (const accept of ['application/json;q=0.001, text/event-stream;q=0.5', ACCEPT + ', text/html;q=0'])
      expect((await post(init, { headers: { accept } })).status, accept).toBe(200);
  });
  it('406 -32000 for a GET stream whose Accept weights text/event-stream q=0', async () => {
    const s = await openSession();
    const get = (accept: string) => SELF.fetch(MCP_URL, { headers: { accept, 'mcp-session-id': s.id } });
    await expectError(await get('text/event-stream;q=0'), 406, -32000);
    await expectError(await get('application/json, text/event-stream; q=0.0'), 406, -32000);
  });
  it('413 when the body is over the limit', async () => {
    const big = JSON.stringify(request('ping', { pad: 'x'.repeat(70_000) }));
    await expectError(await post(big), 413, -32000);
  });
  it('413 for an oversized chunked body without Content-Length', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(40_000));
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(chunk);
        c.enqueue(chunk);
        c.close();
      },
    });
    const res = await SELF.fetch(MCP_URL, {
      method: 'POST',
      headers: { accept: ACCEPT, 'content-type': 'application/json' },
      body: stream,
    });
    await expectError(res, 413, -32000);
  });
});

describe('POST body encoding', () => {
  it('400 -32700 for a body that is not UTF-8: no byte is silently replaced', async () => {
    const s = await openSession();
    const enc = new TextEncoder();
    const before = enc.encode(
      '{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"greet","arguments":{"who":"',
    );
    const after = enc.encode('"}}}');
    const postBytes = (body: Uint8Array) =>
      SELF.fetch(MCP_URL, { method: 'POST', headers: postHeaders({ session: s.id, version: s.version }), body });
    await expectError(await postBytes(new Uint8Array([...before, 0xff, 0xfe, ...after])), 400, -32700);
    // The same request in valid UTF-8 is served, and a leading BOM is allowed (as text() allowed it).
    const served = await postBytes(new Uint8Array([0xef, 0xbb, 0xbf, ...before, ...enc.encode('Ada'), ...after]));
    expect(served.status).toBe(200);
    expect(((await served.json()) as any).result.messages.length).toBeGreaterThan(0);
  });
});

describe('methods', () => {
  it("405 with Allow for HEAD, which must not open (and so replace) the session's stream", async () => {
    const s = await openSession();
    const res = await SELF.fetch(MCP_URL, {
      method: 'HEAD',
      headers: { accept: 'text/event-stream', 'mcp-session-id': s.id, 'mcp-protocol-version': s.version },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST, DELETE');
  });

  it('403 for HEAD from a disallowed Origin: the Origin rule comes before the method is refused', async () => {
    const res = await SELF.fetch(MCP_URL, { method: 'HEAD', headers: { origin: 'https://evil.example' } });
    expect(res.status).toBe(403);
  });
});

describe('the endpoint URL', () => {
  it('308 from /mcp/ to /mcp for every method, keeping the query; the redirected POST is served', async () => {
    for (const method of ['POST', 'GET', 'DELETE']) {
      const res = await SELF.fetch(`${MCP_URL}/?x=1`, { method, redirect: 'manual' });
      expect(res.status, method).toBe(308);
      expect(res.headers.get('location'), method).toBe(`${MCP_URL}?x=1`);
    }
    const init = postInit(request('initialize', { protocolVersion: '2025-11-25' }));
    const res = await SELF.fetch(`${MCP_URL}/`, init);
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeTruthy();
    expect(((await res.json()) as any).result.protocolVersion).toBe('2025-11-25');
  });
  it('the Origin rules hold at /mcp/: a disallowed origin gets 403, an allowed one a preflight and a 308 with CORS', async () => {
    const slash = `${MCP_URL}/`;
    const refused = await SELF.fetch(slash, { method: 'POST', headers: { origin: 'https://evil.example' } });
    await expectError(refused, 403, -32000);
    const origin = 'http://localhost:6274';
    const preflight = await SELF.fetch(slash, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
    const moved = await SELF.fetch(slash, { method: 'POST', headers: { origin }, redirect: 'manual' });
    expect(moved.status).toBe(308);
    expect(moved.headers.get('access-control-allow-origin')).toBe(origin);
  });
  it('404 under /mcp/ for any other path', async () => {
    expect((await SELF.fetch(`${MCP_URL}/x`, { method: 'POST' })).status).toBe(404);
  });
});

describe('JSON-RPC envelope', () => {
  it('400 -32600 on a batch outside a 2025-03-26 session', async () => {
    const s = await openSession('2025-11-25');
    await expectError(await post([request('ping'), request('ping')], { session: s.id }), 400, -32600);
    // Outside any session too: a batch is no request to begin one with.
    await expectError(await post([request('ping'), request('ping')]), 400, -32600);
  });
  it('400 -32600 on initialize inside a batch, and on an empty batch', async () => {
    await expectError(await post([request('initialize', { protocolVersion: '2025-03-26' })]), 400, -32600);
    const s = await openSession('2025-03-26');
    await expectError(await post([], { session: s.id }), 400, -32600);
  });
  it('400 -32600 for a batch of more than MAX_BATCH messages; MAX_BATCH is served', async () => {
    const s = await openSession('2025-03-26');
    const pings = (n: number) => Array.from({ length: n }, () => request('ping'));
    await expectError(await post(pings(MAX_BATCH + 1), { session: s.id }), 400, -32600);
    const res = await post(pings(MAX_BATCH), { session: s.id });
    expect(res.status).toBe(200);
    expect(await res.json<unknown[]>()).toHaveLength(MAX_BATCH);
  });
  it('accepts batches on 2025-03-26 sessions, answering only the requests', async () => {
    const s = await openSession('2025-03-26');
    const a = request('ping');
    const b = request('prompts/get', { name: 'nope' });
    const res = await post(
      [a, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } }, b, { bad: true }],
      {
        session: s.id,
      },
    );
    expect(res.status).toBe(200);
    const replies = await res.json<any[]>();
    expect(replies).toHaveLength(3);
    expect(replies.find((r) => r.id === a.id).result).toEqual({});
    expect(replies.find((r) => r.id === b.id).error.code).toBe(-32602);
    // 2025-03-26 errors carry an id: one that could not be read is null (JSON-RPC 2.0 §5).
    expect(replies.every((r) => 'id' in r)).toBe(true);
    expect(replies.find((r) => r.id === null).error.code).toBe(-32600);
    const onlyNotes = await post([{ jsonrpc: '2.0', method: 'notifications/initialized' }], { session: s.id });
    expect(onlyNotes.status).toBe(202);
    expect(await onlyNotes.text()).toBe('');
  });
  it('202 with no body for notifications and responses', async () => {
    const s = await openSession();
    for (const msg of [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 'srv-1', result: {} },
      { jsonrpc: '2.0', id: 'srv-2', error: { code: -1, message: 'x' } },
      // An error about a request whose id the client could not read (JSON-RPC 2.0 §5).
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
    ]) {
      const res = await post(msg, { session: s.id, version: s.version });
      expect(res.status).toBe(202);
      expect(await res.text()).toBe('');
    }
  });
});

describe('sessions at the transport', () => {
  it('404 for an id forged from a real one', async () => {
    const s = await openSession();
    const forged = s.id.slice(0, -2) + (s.id.endsWith('AA') ? 'BB' : 'AA');
    await expectError(await post(request('ping'), { session: forged }), 404, -32001);
  });
  it('400 -32600 when initialize carries a session id', async () => {
    const s = await openSession();
    await expectError(
      await post(request('initialize', { protocolVersion: '2025-11-25' }), { session: s.id }),
      400,
      -32600,
    );
  });
  it('DELETE ends the session; later requests get 404', async () => {
    const s = await openSession();
    const del = await SELF.fetch(MCP_URL, { method: 'DELETE', headers: { 'mcp-session-id': s.id } });
    expect(del.status).toBe(200);
    await expectError(await post(request('ping'), { session: s.id }), 404, -32001);
    const again = await SELF.fetch(MCP_URL, { method: 'DELETE', headers: { 'mcp-session-id': s.id } });
    await expectError(again, 404, -32001);
  });
  it('session ids are visible ASCII and unique', async () => {
    const ids = await Promise.all([1, 2, 3, 4, 5].map(() => openSession().then((s) => s.id)));
    expect(new Set(ids).size).toBe(5);
    for (const id of ids) expect(id).toMatch(/^[\x21-\x7e]+$/);
  });
});

describe('protocol version and origin', () => {
  it('400 -32000 for an unsupported MCP-Protocol-Version', async () => {
    const s = await openSession();
    const err = await expectError(await post(request('ping'), { session: s.id, version: '1999-01-01' }), 400, -32000);
    expect(err.data.supported).toContain('2025-11-25');
  });
  it('403 for a disallowed Origin; allowed origins and no Origin pass', async () => {
    const body = request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 't', version: '1' },
    });
    await expectError(await post(body, { headers: { origin: 'https://evil.example' } }), 403, -32000);
    await expectError(await post(body, { headers: { origin: 'http://localhost.evil.example:3000' } }), 403, -32000);
    expect((await post(body, { headers: { origin: 'http://localhost:6274' } })).status).toBe(200);
    expect((await post(body, { headers: { origin: 'https://app.example.com' } })).status).toBe(200);
    expect((await post(body)).status).toBe(200);
  });
  it('CORS preflight exposes the session header to allowed origins', async () => {
    const res = await SELF.fetch(MCP_URL, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:6274',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'mcp-session-id',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    const init = await post(request('initialize', { protocolVersion: '2025-11-25' }), {
      headers: { origin: 'http://localhost:6274' },
    });
    const exposed = init.headers.get('access-control-expose-headers')?.toLowerCase();
    expect(exposed).toContain('mcp-session-id');
    // The same list as a 429 made before the guard: a 503's Retry-After is readable after it, too.
    expect(exposed).toContain('retry-after');
  });
});
