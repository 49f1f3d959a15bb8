/**
 * Request logs, spans and Server-Timing through the real Worker (docs/observability.md): one
 * `request` line per HTTP request with the OTel MCP field names in both eras, error.type for
 * in-band and HTTP errors, the client label from initialize, the session memo and the modern
 * `_meta`, the principal id and never its token, continued trace context, and a span per call.
 */
import { createExecutionContext, env, SELF, waitOnExecutionContext } from 'cloudflare:test';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import worker from '../../src/index.js';
import { useTracer, type SpanLike, type Tracer } from '../../src/rpc/span.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { LEGACY, MODERN, modernPost, openSessionWith, postInit, request, streamHeaders } from '../helpers/protocol.js';
import { ADMIN_TOKEN, countingEnv, MCP_URL, publish } from '../helpers/worker.js';

type Line = Record<string, unknown>;
type Vars = Record<string, string>;
const variant = (vars: Vars = {}) => ({ ...env, ...vars }) as Env;

let printed: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  printed = [];
});

/** Everything the Worker prints, on every console channel. */
function capture(): void {
  for (const level of ['log', 'warn', 'error', 'info', 'debug'] as const)
    vi.spyOn(console, level).mockImplementation((...a: unknown[]) => void printed.push(a.map(String).join(' ')));
}

/** The `request` lines printed so far. */
const requestLines = (): Line[] =>
  printed.flatMap((p) => {
    try {
      const line = JSON.parse(p) as Line;
      return line.msg === 'request' ? [line] : [];
    } catch {
      return [];
    }
  });

async function send(e: Env, url: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(url, init), e, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** Sends one request and returns its response and the one line it printed. */
async function logged(e: Env, url: string, init: RequestInit = {}): Promise<{ res: Response; line: Line }> {
  const before = requestLines().length;
  const res = await send(e, url, init);
  await res.arrayBuffer();
  const lines = requestLines().slice(before);
  expect(lines, JSON.stringify(lines)).toHaveLength(1);
  return { res, line: lines[0]! };
}

const fetcher = (e: Env) => (url: string, init?: RequestInit) => send(e, url, init);
const GET_GREET = { name: 'greet', arguments: { who: 'Ada' } };

beforeAll(async () => {
  await publish(FIXTURE_PROMPTS);
});

describe('the request line', () => {
  it('legacy prompts/get: the OTel MCP fields, the session id, the client from the session, cache isolate', async () => {
    capture();
    const e = variant();
    const s = await openSessionWith(fetcher(e), MCP_URL);
    const body = request('prompts/get', GET_GREET);
    const { res, line } = await logged(e, MCP_URL, postInit(body, { session: s.id, version: s.version }));
    expect(res.status).toBe(200);
    expect(line).toEqual({
      msg: 'request',
      'http.request.method': 'POST',
      'url.path': '/mcp',
      'http.response.status_code': 200,
      duration_ms: expect.any(Number),
      'mcp.method.name': 'prompts/get',
      'jsonrpc.request.id': String(body.id),
      'gen_ai.prompt.name': 'greet',
      'mcp.protocol.version': LEGACY,
      'mcp.session.id': s.id,
      'promptgate.era': 'legacy',
      'promptgate.client': 'test/1',
      'promptgate.principal': 'anonymous',
      'promptgate.cache': 'isolate',
    });
  });

  it('modern prompts/get: no mcp.session.id, the client from _meta, the modern revision', async () => {
    capture();
    const { body, init } = modernPost('prompts/get', GET_GREET);
    const { line } = await logged(variant(), MCP_URL, init);
    expect(line).toMatchObject({
      'mcp.method.name': 'prompts/get',
      'jsonrpc.request.id': String(body.id),
      'gen_ai.prompt.name': 'greet',
      'mcp.protocol.version': MODERN,
      'promptgate.era': 'modern',
      'promptgate.client': 'test/1',
      'http.response.status_code': 200,
    });
    expect(line).not.toHaveProperty('mcp.session.id');
    expect(line).not.toHaveProperty('error.type');
  });

  it('one line per request, initialize and the notification included; initialize names its client and session', async () => {
    capture();
    const e = variant();
    const init = request('initialize', {
      protocolVersion: LEGACY,
      capabilities: {},
      clientInfo: { name: `sdk-${'x'.repeat(100)}`, version: '9.9' },
    });
    const { res, line } = await logged(e, MCP_URL, postInit(init));
    expect(line).toMatchObject({
      'mcp.method.name': 'initialize',
      'mcp.protocol.version': LEGACY,
      'mcp.session.id': res.headers.get('mcp-session-id'),
      // Client input on every line: cut to 64 characters.
      'promptgate.client': `sdk-${'x'.repeat(60)}/9.9`,
    });
    const note = { jsonrpc: '2.0', method: 'notifications/initialized' };
    const sid = res.headers.get('mcp-session-id')!;
    const { line: noted } = await logged(e, MCP_URL, postInit(note, { session: sid, version: LEGACY }));
    expect(noted).toMatchObject({ 'http.response.status_code': 202, 'promptgate.era': 'legacy' });
    expect(noted).not.toHaveProperty('mcp.method.name');
    expect(requestLines()).toHaveLength(2);
  });

  it('a method name is client input too: cut to 100 characters on the line', async () => {
    capture();
    const method = `x/${'m'.repeat(5_000)}`;
    const { res, line } = await logged(variant(), MCP_URL, modernPost(method).init);
    expect(res.status).toBe(404);
    expect(line['mcp.method.name']).toBe(method.slice(0, 100));
  });

  it('"Method not found" quotes the method cut to the same bound in both eras', async () => {
    capture();
    const e = variant();
    const method = `x/${'m'.repeat(5_000)}`;
    const expected = `Method not found: ${method.slice(0, 100)}…`;
    const modern = await send(e, MCP_URL, modernPost(method).init);
    expect(((await modern.json()) as any).error.message).toBe(expected);
    const s = await openSessionWith(fetcher(e), MCP_URL, LEGACY);
    const legacy = await send(e, MCP_URL, postInit(request(method), { session: s.id, version: s.version }));
    const { error } = (await legacy.json()) as any;
    expect(error.code).toBe(-32601);
    expect(error.message).toHaveLength(expected.length);
    expect(error.message).toBe(expected);
  });

  it('a request id and a URL path are client input too: cut on the line', async () => {
    capture();
    const id = 'i'.repeat(10_000);
    const { init } = modernPost('prompts/list');
    const body = { ...JSON.parse(init.body as string), id };
    const { line } = await logged(variant(), MCP_URL, { ...init, body: JSON.stringify(body) });
    expect(line['jsonrpc.request.id']).toBe(`${id.slice(0, 200)}…`);
    const path = `/p/${'x'.repeat(5_000)}`;
    const { line: page } = await logged(variant(), `https://gateway.test${path}`);
    expect(page['url.path']).toBe(`${path.slice(0, 512)}…`);
  });

  it('in-session requests name the client from the signed session id when the session is not re-checked', async () => {
    capture();
    const e = variant({ SESSION_RECHECK_MS: '60000' });
    const s = await openSessionWith(fetcher(e), MCP_URL);
    const { line } = await logged(e, MCP_URL, postInit(request('prompts/list'), { session: s.id, version: s.version }));
    expect(line).toMatchObject({
      'promptgate.client': 'test/1',
      'mcp.session.id': s.id,
      'promptgate.cache': 'isolate',
    });
  });

  it('error.type: an unknown prompt is -32602 in-band (HTTP 200), in both eras', async () => {
    capture();
    const e = variant();
    const s = await openSessionWith(fetcher(e), MCP_URL);
    const bad = { name: 'no-such-prompt' };
    const legacy = await logged(
      e,
      MCP_URL,
      postInit(request('prompts/get', bad), { session: s.id, version: s.version }),
    );
    const modern = await logged(e, MCP_URL, modernPost('prompts/get', bad).init);
    for (const { res, line } of [legacy, modern]) {
      expect(res.status).toBe(200);
      expect(line).toMatchObject({
        'error.type': '-32602',
        'rpc.response.status_code': '-32602',
        'gen_ai.prompt.name': 'no-such-prompt',
        'http.response.status_code': 200,
      });
    }
  });

  it('error.type: a listen without params.notifications is -32602 in-band (HTTP 200)', async () => {
    capture();
    const { res, line } = await logged(variant(), MCP_URL, modernPost('subscriptions/listen').init);
    expect(res.status).toBe(200);
    expect(line).toMatchObject({
      'mcp.method.name': 'subscriptions/listen',
      'error.type': '-32602',
      'rpc.response.status_code': '-32602',
    });
  });

  it('error.type on HTTP errors: a bad session 404 (-32001), initialize refused in-band, a plain 404', async () => {
    capture();
    const e = variant();
    const body = request('prompts/list');
    const gone = await logged(e, MCP_URL, postInit(body, { session: 'not-a-session', version: LEGACY }));
    expect(gone.res.status).toBe(404);
    expect(gone.line).toMatchObject({
      'http.response.status_code': 404,
      'mcp.method.name': 'prompts/list',
      'jsonrpc.request.id': String(body.id),
      'mcp.session.id': 'not-a-session',
      'error.type': '-32001',
      'rpc.response.status_code': '-32001',
    });
    const refused = await logged(e, MCP_URL, postInit(request('initialize', { capabilities: {} })));
    expect(refused.res.status).toBe(200);
    expect(refused.line).toMatchObject({ 'mcp.method.name': 'initialize', 'error.type': '-32602' });
    const parse = await logged(e, MCP_URL, postInit('{not json'));
    expect(parse.line).toMatchObject({ 'http.response.status_code': 400, 'error.type': '-32700' });
    expect(parse.line).not.toHaveProperty('mcp.method.name');
    const nowhere = await logged(e, 'https://gateway.test/nowhere');
    expect(nowhere.line).toMatchObject({
      'url.path': '/nowhere',
      'http.response.status_code': 404,
      'error.type': '404',
    });
    expect(nowhere.line).not.toHaveProperty('rpc.response.status_code');
  });

  it('a batch is one line: the first failing call, and the number of calls', async () => {
    capture();
    const e = variant();
    const s = await openSessionWith(fetcher(e), MCP_URL, '2025-03-26');
    const batch = [request('prompts/list'), request('prompts/get', { name: 'nope' })];
    const { line } = await logged(e, MCP_URL, postInit(batch, { session: s.id, version: s.version }));
    expect(line).toMatchObject({ 'mcp.method.name': 'prompts/get', 'error.type': '-32602', 'promptgate.calls': 2 });
  });

  it('an unreadable item in a batch is a failed call of its own, with its error.type', async () => {
    capture();
    const e = variant();
    const s = await openSessionWith(fetcher(e), MCP_URL, '2025-03-26');
    const batch = [request('prompts/list'), { jsonrpc: '2.0', id: 9, method: 42 }];
    const { res, line } = await logged(e, MCP_URL, postInit(batch, { session: s.id, version: s.version }));
    expect(res.status).toBe(200);
    expect(line).toMatchObject({ 'error.type': '-32600', 'rpc.response.status_code': '-32600', 'promptgate.calls': 2 });
    expect(line).not.toHaveProperty('mcp.method.name');
  });

  it('trace context in _meta is continued on the line when valid, and ignored when not', async () => {
    capture();
    const e = variant();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const good = `00-${traceId}-00f067aa0ba902b7-01`;
    const traced = await logged(
      e,
      MCP_URL,
      modernPost('prompts/get', { ...GET_GREET, _meta: { traceparent: good } }).init,
    );
    expect(traced.line.trace_id).toBe(traceId);
    for (const bad of [
      `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
      `00-${traceId}-${'0'.repeat(16)}-01`,
      'garbage',
      42,
    ]) {
      const { line } = await logged(
        e,
        MCP_URL,
        modernPost('prompts/get', { ...GET_GREET, _meta: { traceparent: bad } }).init,
      );
      expect(line).not.toHaveProperty('trace_id');
    }
  });
});

describe('principals and tokens', () => {
  const guarded = () => variant({ AUTH: 'apikey' });

  async function mintKey(e: Env): Promise<{ key: string; id: string }> {
    const res = await send(e, 'https://gateway.test/admin/keys', {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'observe-test' }),
    });
    expect(res.status).toBe(201);
    return res.json<{ key: string; id: string }>();
  }

  it('the principal id is on the line, and no token text is printed anywhere (API key, admin token, a bad one)', async () => {
    const e = guarded();
    const { key, id } = await mintKey(e);
    capture();
    const bad = 'pgk_this-is-not-a-valid-key-0123456789';
    const withKey = modernPost('prompts/get', GET_GREET);
    const a = await logged(e, MCP_URL, {
      ...withKey.init,
      headers: { ...(withKey.init.headers as Vars), authorization: `Bearer ${key}` },
    });
    expect(a.res.status).toBe(200);
    expect(a.line['promptgate.principal']).toBe(`key:${id}`);
    const asAdmin = modernPost('prompts/list');
    const b = await logged(e, MCP_URL, {
      ...asAdmin.init,
      headers: { ...(asAdmin.init.headers as Vars), authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(b.line['promptgate.principal']).toBe('admin');
    const refused = modernPost('prompts/list');
    const c = await logged(e, MCP_URL, {
      ...refused.init,
      headers: { ...(refused.init.headers as Vars), authorization: `Bearer ${bad}` },
    });
    expect(c.res.status).toBe(401);
    expect(c.line).toMatchObject({ 'http.response.status_code': 401, 'error.type': '401' });
    expect(c.line).not.toHaveProperty('promptgate.principal');
    // A key pasted where its id belongs: the path names no key id, and the key is not printed.
    const d = await logged(e, `https://gateway.test/admin/keys/${key}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(d.res.status).toBe(404);
    expect(d.line['url.path']).toBe('/admin/keys/pg_[redacted]');
    const all = printed.join('\n');
    for (const secret of [key, ADMIN_TOKEN, bad]) expect(all).not.toContain(secret);
    // The field names are chosen so that lib/log.ts's credential filter never hides one by accident.
    for (const line of requestLines()) expect(Object.values(line)).not.toContain('[redacted]');
  });
});

describe('error lines', () => {
  it('a path on an unhandled or configuration error line is the logged path: bounded, a pasted key blanked', async () => {
    capture();
    // A bad variable fails every route with a ConfigError: app.onError logs it with the path.
    const e = variant({ PAGE_SIZE: 'many' });
    const key = `pg_${'k'.repeat(43)}`;
    const res = await send(e, `https://gateway.test/admin/keys/${key}/${'x'.repeat(2000)}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(500);
    const lines = printed.flatMap((p) => {
      try {
        return [JSON.parse(p) as Line];
      } catch {
        return [];
      }
    });
    const withPath = lines.filter((l) => typeof l.path === 'string');
    expect(withPath.map((l) => l.msg)).toContain('configuration error');
    for (const l of withPath) {
      expect((l.path as string).length).toBeLessThanOrEqual(513);
      expect(l.path).toMatch(/^\/admin\/keys\/pg_\[redacted\]\//);
    }
    expect(printed.join('\n')).not.toContain(key);
  });
});

describe('Server-Timing', () => {
  const TOTAL = /(^|, )total;dur=\d+$/;

  it('names the cache layer and the total on /mcp and /prompts, and the total alone on an error', async () => {
    const e = variant();
    const get = await send(e, MCP_URL, modernPost('prompts/get', GET_GREET).init);
    expect(get.headers.get('server-timing')).toMatch(/^cache;desc=isolate, total;dur=\d+$/);
    const list = await send(e, 'https://gateway.test/prompts');
    expect(list.status).toBe(200);
    expect(list.headers.get('server-timing')).toMatch(/^cache;desc=(isolate|edge|kv), total;dur=\d+$/);
    const gone = await send(e, MCP_URL, postInit(request('prompts/list'), { session: 'nope', version: LEGACY }));
    expect(gone.status).toBe(404);
    expect(gone.headers.get('server-timing')).toMatch(/^total;dur=\d+$/);
    for (const r of [get, list, gone]) expect(r.headers.get('server-timing')).toMatch(TOTAL);
  });

  it('a session stream (SSE) gets the header before its first byte, and still streams', async () => {
    const s = await openSessionWith((u, i) => SELF.fetch(u, i), MCP_URL);
    const res = await SELF.fetch(MCP_URL, { headers: streamHeaders(s.id, s.version) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(res.headers.get('server-timing')).toMatch(/^total;dur=\d+$/);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    expect(new TextDecoder().decode(first.value)).toMatch(/^(id|retry|data|:)/m);
    await reader.cancel();
  });

  it('a cold isolate names the layer that answered a listing (KV or the edge cache)', async () => {
    // A new KV binding object is a cold isolate's view: no catalog in memory (helpers/worker.ts).
    const cold = countingEnv();
    const first = await send(cold.env, MCP_URL, modernPost('prompts/list').init);
    expect(first.headers.get('server-timing')).toMatch(/^cache;desc=(kv|edge), total;dur=\d+$/);
  });
});

describe('spans', () => {
  interface Recorded {
    name: string;
    attributes: Record<string, unknown>;
  }

  /** A tracer that records every span it is asked to enter, sampled like a traced request. */
  function recording(): { tracer: Tracer; spans: Recorded[] } {
    const spans: Recorded[] = [];
    const tracer: Tracer = {
      enterSpan(name, callback, ...args) {
        const rec: Recorded = { name, attributes: {} };
        spans.push(rec);
        const span: SpanLike = { isTraced: true, setAttribute: (k, v) => void (rec.attributes[k] = v) };
        return callback(span, ...args);
      },
    };
    return { tracer, spans };
  }

  it('one span per call, named `prompts/get {gen_ai.prompt.name}`, with the attributes of the log line', async () => {
    const { tracer, spans } = recording();
    const previous = useTracer(tracer);
    try {
      const traceId = 'abcdef0123456789abcdef0123456789';
      const meta = { traceparent: `00-${traceId}-0123456789abcdef-01` };
      const { body, init } = modernPost('prompts/get', { ...GET_GREET, _meta: meta });
      await send(variant(), MCP_URL, init);
      await send(variant(), MCP_URL, modernPost('prompts/list').init);
      expect(spans.map((s) => s.name)).toEqual(['prompts/get greet', 'prompts/list']);
      expect(spans[0]!.attributes).toMatchObject({
        'mcp.method.name': 'prompts/get',
        'gen_ai.prompt.name': 'greet',
        'jsonrpc.request.id': String(body.id),
        'mcp.protocol.version': MODERN,
        'promptgate.era': 'modern',
        'promptgate.cache': 'isolate',
        'promptgate.trace_id': traceId,
      });
      expect(spans[0]!.attributes).not.toHaveProperty('mcp.session.id');
    } finally {
      useTracer(previous);
    }
  });

  it('TRACE_SPANS=off makes no span', async () => {
    const { tracer, spans } = recording();
    const previous = useTracer(tracer);
    try {
      await send(variant({ TRACE_SPANS: 'off' }), MCP_URL, modernPost('prompts/get', GET_GREET).init);
      expect(spans).toEqual([]);
    } finally {
      useTracer(previous);
    }
  });
});
