/**
 * Request logs and trace context against a real `wrangler dev` with access control on (API keys)
 * and a real upstream MCP server that records the `_meta` it receives: exactly one `request` line
 * per HTTP request, no token text anywhere in wrangler's output, the client label of an SDK 1.x
 * session, and `_meta.traceparent` continued upstream with the same trace id (nothing else of the
 * client's `_meta` forwarded), with the upstream's time in Server-Timing.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../helpers/live.js';
import { envelope, LEGACY, modernHeaders, postHeaders } from '../helpers/protocol.js';
import { legacyServer, type LegacyPrompt } from '../helpers/upstreams.js';
import { startGateway, type Gateway } from '../helpers/wrangler-dev.js';

const PROMPTS: LegacyPrompt[] = [
  { name: 'beta', text: 'beta {who}', args: [{ name: 'who', required: true, values: ['world', 'wombat'] }] },
];
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const TRACEPARENT = `00-${TRACE_ID}-b7ad6b7169203331-01`;

let gw: Gateway;
let upstream: Awaited<ReturnType<typeof legacyServer>>;
let key: string;
let keyId: string;
/** A marker unique to this run, so lines are matched to the requests that made them. */
const RUN = `obs${Date.now().toString(36)}`;
let seq = 0;

type Line = Record<string, unknown>;

/** Every `request` line wrangler has printed so far. */
function requestLines(): Line[] {
  return gw
    .output()
    .split('\n')
    .flatMap((l) => {
      const at = l.indexOf('{"msg":"request"');
      if (at < 0) return [];
      try {
        return [JSON.parse(l.slice(at)) as Line];
      } catch {
        return [];
      }
    });
}

/** The lines of one JSON-RPC request id, once the line of `id` has been printed. */
async function linesOf(id: string): Promise<Line[]> {
  await waitUntil(() => requestLines().some((l) => l['jsonrpc.request.id'] === id), `the log line of ${id}`);
  return requestLines().filter((l) => l['jsonrpc.request.id'] === id);
}

const auth = () => ({ authorization: `Bearer ${key}` });

/** A modern POST with its own id; returns the id, the response and its parsed body. */
async function modern(method: string, params: Record<string, unknown>, meta: Record<string, unknown> = {}) {
  const id = `${RUN}-${++seq}`;
  const name = typeof params.name === 'string' ? params.name : undefined;
  const res = await fetch(gw.mcpUrl, {
    method: 'POST',
    headers: { ...modernHeaders(method, name), ...auth() },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope(meta) } }),
  });
  return { id, res, body: (await res.json()) as any };
}

beforeAll(async () => {
  upstream = await legacyServer(PROMPTS);
  gw = await startGateway({
    vars: {
      AUTH: 'apikey',
      UPSTREAMS: JSON.stringify([{ id: 'up', url: upstream.url }]),
      UPSTREAM_ALLOW_HTTP_LOOPBACK: 'true',
    },
  });
  const res = await fetch(`${gw.url}/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'observe-e2e' }),
  });
  expect(res.status).toBe(201);
  ({ key, id: keyId } = (await res.json()) as { key: string; id: string });
}, 120_000);

afterAll(async () => {
  await gw?.stop();
  await upstream?.close();
});

describe('trace context and the upstream', () => {
  it('prompts/get continues _meta.traceparent upstream (same trace, new parent), forwards nothing else', async () => {
    const before = upstream.metas.length;
    const meta = { traceparent: TRACEPARENT, tracestate: 'congo=t61rcWkgMzE', 'example.com/secret': 'keep-me-here' };
    const { id, res, body } = await modern('prompts/get', { name: 'up.beta', arguments: { who: 'world' } }, meta);
    expect(res.status).toBe(200);
    expect(body.result.messages[0].content.text).toBe('beta world');
    const sent = upstream.metas.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toEqual({ traceparent: expect.any(String), tracestate: 'congo=t61rcWkgMzE' });
    const forwarded = String(sent[0]!.traceparent);
    expect(forwarded).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    expect(forwarded).not.toBe(TRACEPARENT);
    expect(res.headers.get('server-timing')).toMatch(
      /^cache;desc=upstream, upstream;dur=\d+;desc="up", total;dur=\d+$/,
    );
    const [line, ...more] = await linesOf(id);
    expect(more).toEqual([]);
    expect(line).toMatchObject({
      'gen_ai.prompt.name': 'up.beta',
      'promptgate.cache': 'upstream',
      'promptgate.upstream': 'up',
      'promptgate.upstream_ms': expect.any(Number),
      'promptgate.principal': `key:${keyId}`,
      trace_id: TRACE_ID,
    });
  });

  it('completion/complete continues it too; a request without trace context sends none upstream', async () => {
    const before = upstream.metas.length;
    const complete = {
      ref: { type: 'ref/prompt', name: 'up.beta' },
      argument: { name: 'who', value: 'w' },
    };
    const traced = await modern('completion/complete', complete, { traceparent: TRACEPARENT });
    expect(traced.body.result.completion.values).toEqual(['world', 'wombat']);
    const plain = await modern('prompts/get', { name: 'up.beta', arguments: { who: 'wombat' } });
    expect(plain.res.status).toBe(200);
    const sent = upstream.metas.slice(before);
    expect(sent).toHaveLength(2);
    expect(String(sent[0]?.traceparent)).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    expect(sent[1]).toBeUndefined();
  });
});

describe('the log', () => {
  it('an SDK 1.x session: its client label on initialize and on in-session requests, with the session id', async () => {
    const client = new Client({ name: 'observe-sdk', version: '1.2.3' });
    const transport = new StreamableHTTPClientTransport(new URL(gw.mcpUrl), { requestInit: { headers: auth() } });
    await client.connect(transport);
    const got = await client.getPrompt({ name: 'up.beta', arguments: { who: 'world' } });
    expect(got.messages).toHaveLength(1);
    const sessionId = transport.sessionId!;
    await client.close();
    await waitUntil(
      () => requestLines().some((l) => l['mcp.session.id'] === sessionId && l['mcp.method.name'] === 'prompts/get'),
      'the session prompts/get line',
    );
    const session = requestLines().filter((l) => l['mcp.session.id'] === sessionId);
    const methods = session.map((l) => l['mcp.method.name']);
    expect(methods).toEqual(expect.arrayContaining(['initialize', 'prompts/get']));
    for (const l of session.filter((x) => x['mcp.method.name'] !== undefined))
      expect(l).toMatchObject({
        'promptgate.client': 'observe-sdk/1.2.3',
        'promptgate.era': 'legacy',
        'promptgate.principal': `key:${keyId}`,
        'mcp.protocol.version': LEGACY,
      });
  });

  it('exactly one line per request, and no token text anywhere in the output', async () => {
    const ids: string[] = [];
    for (const name of ['up.beta', 'no-such-prompt']) {
      const { id } = await modern('prompts/get', { name, arguments: { who: 'team' } });
      ids.push(id);
    }
    const { id: listed } = await modern('prompts/list', {});
    ids.push(listed);
    // A bad session (404) and a bad key (401), each with an id of its own.
    const gone = `${RUN}-${++seq}`;
    const r404 = await fetch(gw.mcpUrl, {
      method: 'POST',
      headers: { ...postHeaders({ session: 'no-such-session', version: LEGACY }), ...auth() },
      body: JSON.stringify({ jsonrpc: '2.0', id: gone, method: 'prompts/list' }),
    });
    expect(r404.status).toBe(404);
    ids.push(gone);
    const badKey = `pgk_${RUN}_not_a_real_key_000000000000`;
    const r401 = await fetch(gw.mcpUrl, {
      method: 'POST',
      headers: { ...modernHeaders('prompts/list'), authorization: `Bearer ${badKey}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: `${RUN}-x`, method: 'prompts/list', params: { _meta: envelope() } }),
    });
    expect(r401.status).toBe(401);
    // The sentinel comes last: once its line is out, every line before it is.
    const { id: sentinel } = await modern('prompts/list', {});
    await linesOf(sentinel);
    for (const id of ids) expect(await linesOf(id), id).toHaveLength(1);
    const lines = requestLines();
    expect(lines.filter((l) => l['jsonrpc.request.id'] === gone)[0]).toMatchObject({ 'error.type': '-32001' });
    // The refused request is read no further than its credential: one line, by status.
    expect(lines.filter((l) => l['http.response.status_code'] === 401)).toHaveLength(1);
    const output = gw.output();
    for (const secret of [key, badKey]) expect(output).not.toContain(secret);
    // wrangler's own start-up banner lists the --var values it was given (ADMIN_TOKEN among them); nothing else may.
    const afterBanner = output
      .split('\n')
      .filter((l) => !/env\.ADMIN_TOKEN\b/.test(l))
      .join('\n');
    expect(afterBanner).toContain('"msg":"request"');
    expect(afterBanner).not.toContain(gw.adminToken);
  });
});
