/**
 * The generators of hostile requests, one per kind, across /mcp (both
 * eras), /prompts, /admin and /status. Each returns a Case with its
 * oracle (hostile-cases.ts). `World` is what the suite set up first: live
 * sessions of two revisions, an ended one, a signed one that never
 * existed, and a genuine list cursor to tamper with.
 */
import {
  ACCEPT,
  greetOracle,
  GREET_TEXT,
  HOSTILE_NAMES,
  hostileArgs,
  malformedJson,
  mcpName,
  META_C,
  META_V,
  MODERN,
  modernRequest,
  nested,
  randomId,
  rpcError,
  LIMITS,
  type Case,
  type Expect,
  type Id,
  type Rng,
} from './hostile-cases.js';

export interface World {
  /** A 2025-11-25 session and a 2025-03-26 one (batches). */
  s1: string;
  s0: string;
  ended: string;
  /** Signed by this gateway, but no session object holds it (as after expiry). */
  unknown: string;
  /** A genuine prompts/list cursor of the current generation. */
  cursor: string;
  adminToken: string;
  /** A fresh client address per admin case, so failed-token lock-outs never cross cases. */
  nextIp(): string;
}

const JSON_POST = { accept: ACCEPT, 'content-type': 'application/json' };
const legacy = (session?: string, version = '2025-11-25') => ({
  ...JSON_POST,
  'mcp-protocol-version': version,
  ...(session ? { 'mcp-session-id': session } : {}),
});
/** A POST to /mcp; a body over the limit is a 413 whatever else is wrong with it (only the header guards come first). */
function mcpPost(
  kind: string,
  headers: Record<string, string>,
  body: string | { chunked: number },
  expect: Expect,
): Case {
  const over = typeof body === 'string' && new TextEncoder().encode(body).length > LIMITS.maxBody;
  return {
    kind,
    method: 'POST',
    path: '/mcp',
    headers,
    body,
    expect: over && ![403, 406, 415].includes(expect.status) ? rpcError(413, -32000, null) : expect,
  };
}
const req = (id: Id, method: string, params?: unknown) =>
  JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });

/** The reply is a JSON-RPC result with this text in its first message. */
const greetText = (text: string) => (b: any) =>
  b?.result?.messages?.[0]?.content?.text === text
    ? undefined
    : `expected text ${JSON.stringify(text).slice(0, 80)}, got ${JSON.stringify(b).slice(0, 200)}`;
const isResult = (b: any) =>
  b && 'result' in b ? undefined : `expected a result, got ${JSON.stringify(b).slice(0, 200)}`;

function greetExpect(id: Id, args: unknown): Expect {
  const o = greetOracle(args);
  return 'error' in o ? rpcError(200, -32602, id) : { status: 200, id, check: greetText(o.text) };
}

export const GENERATORS: Record<string, (r: Rng, w: World) => Case> = {
  malformed: (r, w) =>
    mcpPost('malformed', legacy(r.chance(0.5) ? w.s1 : undefined), malformedJson(r), rpcError(400, -32700, null)),

  deep: (r, w) => {
    const id = randomId(r);
    const depth = r.int(LIMITS.depth + 1, 4000);
    const where = r.int(0, 3);
    if (where === 0)
      return mcpPost(
        'deep',
        legacy(),
        `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":${nested(depth)}}}`,
        rpcError(400, -32600, id),
      );
    if (where === 1) return mcpPost('deep', legacy(w.s1), `[${nested(depth)}]`, rpcError(400, -32600, null));
    if (where === 2) {
      const m = modernRequest(id, 'prompts/get', { name: 'greet' });
      return mcpPost(
        'deep',
        m.headers,
        m.body.replace('"name":"greet"', `"name":"greet","arguments":{"who":${nested(depth)}}`),
        rpcError(400, -32600, id),
      );
    }
    return mcpPost(
      'deep',
      legacy(w.s1),
      req(id, 'prompts/get', { name: 'greet', arguments: { who: 'x' } }).replace(
        '"who":"x"',
        `"who":"x","deep":${nested(depth)}`,
      ),
      rpcError(400, -32600, id),
    );
  },

  huge: (r, w) => {
    const size = r.int(LIMITS.maxBody + 1, LIMITS.maxBody * 2);
    if (r.chance(0.5)) return mcpPost('huge', legacy(w.s1), { chunked: size }, rpcError(413, -32000, null));
    if (r.chance(0.7))
      return mcpPost('huge', legacy(w.s1), req(1, 'ping', { pad: 'x'.repeat(size) }), rpcError(413, -32000, null));
    // Just under the limit, padded with whitespace: served.
    const id = randomId(r);
    const body = req(id, 'ping');
    return mcpPost('huge', legacy(w.s1), body + ' '.repeat(LIMITS.maxBody - body.length - r.int(300, 400)), {
      status: 200,
      id,
      check: isResult,
    });
  },

  headers: (r, w) => {
    const body = req(randomId(r), 'ping');
    if (r.chance(0.5)) {
      const accept = r.pick([
        undefined,
        'application/json',
        'text/event-stream',
        '*/*',
        'application/jsonx, text/event-streams',
        'text/html',
        '',
      ]);
      const h: Record<string, string> = { ...legacy(w.s1) };
      if (accept === undefined) delete h.accept;
      else h.accept = accept;
      if (r.chance(0.3)) h['content-type'] = 'text/plain';
      return mcpPost('headers', h, body, rpcError(406, -32000, null));
    }
    const type = r.pick([
      undefined,
      'text/plain',
      'application/jsonx',
      'multipart/form-data',
      'application/x-www-form-urlencoded',
      'json',
      '',
    ]);
    const h: Record<string, string> = { ...legacy(w.s1) };
    if (type === undefined) delete h['content-type'];
    else h['content-type'] = type;
    return mcpPost('headers', h, body, rpcError(415, -32000, null));
  },

  shape: (r, w) => {
    const id = randomId(r);
    const s = legacy(w.s1);
    return r.pick<() => Case>([
      () =>
        mcpPost(
          'shape',
          s,
          JSON.stringify(r.pick<unknown>([42, 'ping', true, null, -1.5])),
          rpcError(400, -32600, null),
        ),
      () =>
        mcpPost(
          'shape',
          s,
          JSON.stringify({
            jsonrpc: '2.0',
            id: r.pick<unknown>([null, {}, { id: 1 }, [1], 1.5, true, 2 ** 53 + 2]),
            method: 'ping',
          }),
          rpcError(400, -32600, null),
        ),
      () => mcpPost('shape', s, JSON.stringify({ jsonrpc: '2.0', id }), rpcError(400, -32600, id)),
      () =>
        mcpPost(
          'shape',
          s,
          JSON.stringify({ jsonrpc: '2.0', id, method: r.pick<unknown>([12, null, {}, [], '', true]) }),
          rpcError(400, -32600, id),
        ),
      () =>
        mcpPost(
          'shape',
          s,
          JSON.stringify({ jsonrpc: r.pick<unknown>(['1.0', 2, null, '2.0 ']), id, method: 'ping' }),
          rpcError(400, -32600, id),
        ),
      () => mcpPost('shape', s, JSON.stringify({ id, method: 'ping' }), rpcError(400, -32600, id)),
      () =>
        mcpPost('shape', s, req(id, 'ping', r.pick<unknown>([[1], 'x', 3, null, true, []])), rpcError(400, -32600, id)),
      () =>
        mcpPost('shape', s, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), { status: 202 }),
      () => mcpPost('shape', s, JSON.stringify({ jsonrpc: '2.0', id, result: {} }), { status: 202 }),
      () =>
        mcpPost(
          'shape',
          s,
          req(
            id,
            r.pick([
              'tools/list',
              // resources/read and resources/list exist with SKILLS on (the default); subscriptions never do.
              'resources/subscribe',
              'nope',
              '__proto__',
              'constructor',
              'prompts/get/',
              'x'.repeat(5000),
            ]),
          ),
          rpcError(200, -32601, id),
        ),
      () => mcpPost('shape', s, req(id, 'initialize', { protocolVersion: '2025-11-25' }), rpcError(400, -32600, id)),
      () => mcpPost('shape', legacy(w.s0, '2025-03-26'), '[]', rpcError(400, -32600, null)),
      () =>
        mcpPost(
          'shape',
          legacy(w.s0, '2025-03-26'),
          `[${req(1, 'initialize', { protocolVersion: '2025-03-26' })}]`,
          rpcError(400, -32600, null),
        ),
      () => mcpPost('shape', s, `[${req(id, 'ping')}]`, rpcError(400, -32600, null)),
      () => mcpPost('shape', legacy(undefined, '2025-03-26'), `[${req(id, 'ping')}]`, rpcError(400, -32600, null)),
      () => mcpPost('shape', legacy(w.ended, '2025-03-26'), `[${req(id, 'ping')}]`, rpcError(404, -32001, null)),
      () => batch(r, w),
    ])();
  },

  names: (r, w) => {
    const id = randomId(r);
    const name = r.pick(HOSTILE_NAMES);
    const modern = r.chance(0.4);
    const send = (method: string, params: Record<string, unknown>, expect: Expect) => {
      if (!modern) return mcpPost('names', legacy(w.s1), req(id, method, params), expect);
      const m = modernRequest(id, method, params);
      return mcpPost('names', m.headers, m.body, expect);
    };
    return r.pick<() => Case>([
      () => send('prompts/get', { name }, rpcError(200, -32602, id)),
      () => send('prompts/get', { name, arguments: hostileArgs(r) }, rpcError(200, -32602, id)),
      () => {
        const args = hostileArgs(r);
        return send(
          'prompts/get',
          args === undefined ? { name: 'greet' } : { name: 'greet', arguments: args },
          greetExpect(id, args),
        );
      },
      () =>
        send(
          'completion/complete',
          { ref: { type: 'ref/prompt', name }, argument: { name: 'who', value: '' } },
          rpcError(200, -32602, id),
        ),
      () =>
        send(
          'completion/complete',
          { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name, value: r.pick(['', 'a', '{{who}}']) } },
          {
            status: 200,
            id,
            check: (b) =>
              Array.isArray(b?.result?.completion?.values)
                ? undefined
                : `expected a completion, got ${JSON.stringify(b).slice(0, 200)}`,
          },
        ),
    ])();
  },

  sessions: (r, w) => {
    const id = randomId(r);
    const forged = r.pick<() => string>([
      () => w.ended,
      () => w.unknown,
      () => `${w.s1.slice(0, -1)}${w.s1.endsWith('A') ? 'B' : 'A'}`,
      () => 'x'.repeat(r.int(1, 8000)),
      () => w.s1.split('.').reverse().join('.'),
      () => `${w.s1}.${w.s1}`,
      () => 'null',
    ])();
    return r.pick<() => Case>([
      // The body was read before the session was checked: its id is echoed.
      () => mcpPost('sessions', legacy(forged), req(id, 'prompts/list'), rpcError(404, -32001, id)),
      () => mcpPost('sessions', legacy(undefined), req(id, 'ping'), rpcError(400, -32000, id)),
      () => ({
        kind: 'sessions',
        method: 'GET',
        path: '/mcp',
        headers: { accept: 'text/event-stream', 'mcp-session-id': forged },
        expect: rpcError(404, -32001, null),
      }),
      () => ({
        kind: 'sessions',
        method: 'GET',
        path: '/mcp',
        headers: { accept: 'application/json', 'mcp-session-id': w.s1 },
        expect: rpcError(406, -32000, null),
      }),
      () => ({
        kind: 'sessions',
        method: 'DELETE',
        path: '/mcp',
        headers: { 'mcp-session-id': forged },
        expect: rpcError(404, -32001, null),
      }),
      () => ({ kind: 'sessions', method: 'DELETE', path: '/mcp', headers: {}, expect: rpcError(400, -32000, null) }),
      () => ({
        kind: 'sessions',
        method: 'GET',
        path: '/mcp',
        headers: {
          accept: 'text/event-stream',
          'mcp-session-id': w.s1,
          'last-event-id': r.pick([
            'garbage',
            '0',
            '-1',
            'x'.repeat(3000),
            'abc:1',
            `${'A'.repeat(8)}:999999`,
            '::',
            '%ff\t',
          ]),
        },
        expect: rpcError(400, -32000, null),
      }),
    ])();
  },

  versions: (r, w) => {
    const id = randomId(r);
    return r.pick<() => Case>([
      // Legacy: an unsupported version header (never a modern one); the body's id is echoed.
      () =>
        mcpPost(
          'versions',
          legacy(w.s1, r.pick(['2024-11-05', '1.0', 'garbage', '2025-11-25x', '2099-01-01', 'x'.repeat(500)])),
          req(id, 'ping'),
          rpcError(400, -32000, id),
        ),
      // A modern header on a single message without the envelope (SDK v2 rule): modern, -32602, id echoed.
      () =>
        mcpPost(
          'versions',
          { ...JSON_POST, 'mcp-protocol-version': MODERN, 'mcp-method': 'prompts/list' },
          req(id, 'prompts/list'),
          rpcError(400, -32602, id),
        ),
      () => {
        const m = modernRequest(id, 'prompts/list');
        delete m.headers['mcp-protocol-version'];
        return mcpPost('versions', m.headers, m.body, rpcError(400, -32020, id));
      },
      () => {
        const m = modernRequest(id, 'prompts/list');
        m.headers['mcp-protocol-version'] = r.pick(['2025-11-25', '2025-06-18', 'garbage']);
        return mcpPost('versions', m.headers, m.body, rpcError(400, -32020, id));
      },
      () => {
        const v = r.pick(['2099-01-01', '2025-11-25', '1']);
        const m = modernRequest(id, 'prompts/list', {}, { [META_V]: v, [META_C]: {} });
        m.headers['mcp-protocol-version'] = v;
        return mcpPost('versions', m.headers, m.body, rpcError(400, -32022, id));
      },
      () => {
        const m = modernRequest(
          id,
          'prompts/list',
          {},
          { [META_V]: r.pick<unknown>([1, null, {}, ['2026-07-28']]), [META_C]: {} },
        );
        return mcpPost('versions', m.headers, m.body, rpcError(400, -32602, id));
      },
      () => {
        const m = modernRequest(
          id,
          'prompts/list',
          {},
          r.pick([{ [META_V]: MODERN }, { [META_V]: MODERN, [META_C]: r.pick<unknown>([null, [], 'x', 1]) }]),
        );
        return mcpPost('versions', m.headers, m.body, rpcError(400, -32602, id));
      },
      () => {
        const m = modernRequest(id, 'prompts/list');
        if (r.chance(0.5)) delete m.headers['mcp-method'];
        else m.headers['mcp-method'] = r.pick(['prompts/get', 'PROMPTS/LIST', 'x', '__proto__']);
        return mcpPost('versions', m.headers, m.body, rpcError(400, -32020, id));
      },
      () => {
        const m = modernRequest(id, 'prompts/get', { name: 'greet', arguments: { who: 'x' } });
        const bad = r.pick([
          undefined,
          'zeta',
          '=?base64?!!!?=',
          '=?base64?abc?=',
          '=?base64?//8=?=',
          '=?base64?',
          '=?BASE64?Z3JlZXQ=?=',
          mcpName('greet\u0000'),
        ]);
        if (bad === undefined) delete m.headers['mcp-name'];
        else m.headers['mcp-name'] = bad;
        return mcpPost('versions', m.headers, m.body, rpcError(400, -32020, id));
      },
      () => {
        const m = modernRequest(id, 'prompts/get', { name: 'greet', arguments: { who: 'x' } });
        m.headers['mcp-name'] = '=?base64?Z3JlZXQ=?=';
        return mcpPost('versions', m.headers, m.body, { status: 200, id, check: greetText(GREET_TEXT('x', '')) });
      },
      () => {
        const m = modernRequest(id, 'prompts/list');
        return mcpPost('versions', m.headers, `[${m.body}]`, rpcError(400, -32600, null));
      },
      () => {
        const method = r.pick(['ping', 'logging/setLevel', 'initialize', 'resources/subscribe', 'nope']);
        const m = modernRequest(id, method);
        return mcpPost('versions', m.headers, m.body, rpcError(404, -32601, id));
      },
    ])();
  },

  cursors: (r, w) => {
    const id = randomId(r);
    const cursor = r.pick<() => unknown>([
      () => 'garbage',
      () => '',
      () => `${w.cursor.slice(0, -2)}${w.cursor.endsWith('AA') ? 'BB' : 'AA'}`,
      () => w.cursor.split('').reverse().join(''),
      () => 'A'.repeat(r.int(200, 20_000)),
      () => btoa('1.999999.AAAAAAAAAAAAAAAAAAAAAA'),
      () => r.pick<unknown>([1, null, {}, [], true]),
      () => r.pick(HOSTILE_NAMES),
    ])();
    if (r.chance(0.2) && typeof cursor === 'string' && cursor.length < 4000)
      return {
        kind: 'cursors',
        method: 'GET',
        path: `/prompts?cursor=${encodeURIComponent(cursor)}`,
        headers: {},
        expect: { status: 400, api: 'invalid_cursor' },
      };
    if (r.chance(0.4)) {
      const m = modernRequest(id, 'prompts/list', { cursor });
      return mcpPost('cursors', m.headers, m.body, rpcError(200, -32602, id));
    }
    return mcpPost('cursors', legacy(w.s1), req(id, 'prompts/list', { cursor }), rpcError(200, -32602, id));
  },

  origins: (r, w) => {
    const origin = r.pick([
      'https://evil.example',
      'http://localhost.evil.com',
      'null',
      'x',
      'http://127.0.0.1:8787',
      'https://app.example.com.evil.test',
      'http://app.example.com',
      'file://',
    ]);
    const method = r.pick(['POST', 'GET', 'DELETE', 'OPTIONS']);
    const headers: Record<string, string> = { ...legacy(w.s1), origin };
    if (method === 'GET') headers.accept = 'text/event-stream';
    return {
      kind: 'origins',
      method,
      path: '/mcp',
      headers,
      body: method === 'POST' ? req(1, 'ping') : undefined,
      expect: rpcError(403, -32000, null),
    };
  },

  methods: (r, w) => {
    const method = r.pick(['PUT', 'PATCH']);
    if (r.chance(0.6))
      return {
        kind: 'methods',
        method,
        path: '/mcp',
        headers: legacy(w.s1),
        body: req(1, 'ping'),
        expect: rpcError(405, -32000, null),
      };
    const [m, path] = r.pick<[string, string]>([
      ['POST', '/status'],
      ['DELETE', '/prompts'],
      ['PUT', '/prompts/greet'],
      ['POST', '/prompts'],
      ['PATCH', '/status'],
      ['OPTIONS', '/status'],
      ['GET', '/mcp/x'],
      ['POST', '/nope'],
    ]);
    return {
      kind: 'methods',
      method: m,
      path,
      headers: JSON_POST,
      body: m === 'GET' ? undefined : '{}',
      expect: { status: 404, api: 'not_found' },
    };
  },

  admin: (r, w) => {
    const ip = w.nextIp();
    const token = r.pick<() => string | undefined>([
      () => undefined,
      () => '',
      () => 'wrong',
      () => `${w.adminToken.slice(0, -1)}${w.adminToken.endsWith('x') ? 'y' : 'x'}`,
      () => `X${w.adminToken.slice(1)}`,
      () => w.adminToken.slice(0, -1),
      () => `${w.adminToken}x`,
      () => w.adminToken.toUpperCase(),
      () => 'x'.repeat(r.int(1, 5000)),
    ])();
    const scheme = r.pick(['Bearer', 'bearer', 'Basic', 'Token']);
    const headers: Record<string, string> = { 'cf-connecting-ip': ip, 'content-type': 'application/json' };
    if (token !== undefined) headers.authorization = `${scheme} ${token}`;
    const [method, path] = r.pick<[string, string]>([
      ['GET', '/admin/prompts'],
      ['POST', '/admin/publish'],
      ['PUT', '/admin/prompts/greet'],
      ['DELETE', '/admin/prompts/greet'],
      ['PUT', '/admin/catalog'],
      ['PUT', '/admin/upstreams'],
      ['DELETE', '/admin/upstreams'],
      ['POST', '/admin/prompts/greet/rollback'],
    ]);
    const body = method === 'GET' || method === 'DELETE' ? undefined : '{"prompts":[]}';
    if (!r.chance(0.3))
      return { kind: 'admin', method, path, headers, body, expect: { status: 401, api: 'unauthorized' } };
    // The right token with hostile names and bodies: refused without a write.
    headers.authorization = `Bearer ${w.adminToken}`;
    return r.pick<() => Case>([
      () => {
        const name = r.pick(
          HOSTILE_NAMES.filter(
            (n) => !/^[A-Za-z0-9_.-]{1,64}$/.test(n) && !/^\.\.?$/.test(n) && n !== '' && !n.includes('/'),
          ),
        );
        return {
          kind: 'admin',
          method: r.pick(['GET', 'PUT', 'DELETE']),
          path: `/admin/prompts/${encodeURIComponent(name)}`,
          headers,
          body: '{}',
          expect: { status: 400, api: 'invalid_name' },
        };
      },
      () => ({
        kind: 'admin',
        method: 'GET',
        path: `/admin/prompts/${r.pick(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'nope'])}`,
        headers,
        expect: { status: 404, api: 'not_found' },
      }),
      () => ({
        kind: 'admin',
        method: 'POST',
        path: '/admin/publish?dry_run=1',
        headers,
        body: malformedJson(r),
        expect: { status: 400, api: 'invalid_json' },
      }),
      () => ({
        kind: 'admin',
        method: 'PUT',
        path: '/admin/prompts/hostile_probe',
        headers,
        body: `{"messages":[],"x":${nested(r.int(LIMITS.depth + 1, 3000))}}`,
        expect: { status: 400, api: 'invalid_json' },
      }),
      () => ({
        kind: 'admin',
        method: 'POST',
        path: '/admin/publish',
        headers: { ...headers, 'content-type': 'text/plain' },
        body: '{"prompts":[]}',
        expect: { status: 415, api: 'unsupported_media_type' },
      }),
    ])();
  },

  status: (r) => {
    return r.pick<() => Case>([
      () => ({
        kind: 'status',
        method: 'GET',
        path: `/status${r.chance(0.5) ? `?x=${encodeURIComponent(r.pick(HOSTILE_NAMES).slice(0, 100))}` : ''}`,
        headers: {},
        expect: { status: 200, check: (b) => (typeof b?.generation === 'number' ? undefined : 'no generation') },
      }),
      () => ({
        kind: 'status',
        method: 'GET',
        path: '/prompts',
        headers: { 'if-none-match': r.pick(['*x', '"garbage"', 'W/""', 'x'.repeat(3000)]) },
        expect: { status: 200 },
      }),
      () => {
        const name = r.pick(HOSTILE_NAMES.filter((n) => n !== '' && !/^\.\.?$/.test(n)));
        return {
          kind: 'status',
          method: 'GET',
          path: `/prompts/${encodeURIComponent(name)}`,
          headers: {},
          expect: { status: 404, api: 'unknown_prompt' },
        };
      },
      () => ({
        kind: 'status',
        method: 'GET',
        path: '/prompts/greet',
        headers: {},
        expect: { status: 200, check: (b) => (b?.prompt?.name === 'greet' ? undefined : 'not greet') },
      }),
    ])();
  },
};

/**
 * A 2025-03-26 batch mixing requests, broken items and notifications: one reply per request or
 * broken item, in order; a batch over the limit is refused whole.
 */
function batch(r: Rng, w: World): Case {
  const items: string[] = [];
  const expected: { id: Id | null; code?: number }[] = [];
  const n = r.chance(0.1) ? r.pick([LIMITS.batch, LIMITS.batch + 1, r.int(LIMITS.batch + 2, 1000)]) : r.int(1, 30);
  for (let i = 0; i < n; i++) {
    const id = r.chance(0.5) ? i : `b${i}`;
    const k = r.int(0, 5);
    if (k <= 2) {
      items.push(req(id, 'ping'));
      expected.push({ id });
    } else if (k === 3) {
      items.push(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    } else if (k === 4) {
      items.push(JSON.stringify({ jsonrpc: '2.0', id, method: 7 }));
      expected.push({ id, code: -32600 });
    } else {
      items.push(r.pick(['42', 'null', '"x"', '{"jsonrpc":"2.0","id":null,"method":"ping"}']));
      expected.push({ id: null, code: -32600 });
    }
  }
  const check = (b: any) => {
    if (!Array.isArray(b) || b.length !== expected.length)
      return `expected ${expected.length} replies, got ${JSON.stringify(b).slice(0, 200)}`;
    for (let i = 0; i < expected.length; i++) {
      const e = expected[i]!;
      const got = b[i];
      // An item whose id cannot be read is answered with "id": null (2025-03-26 errors carry an id).
      if (e.id === null ? got.id !== null : got.id !== e.id)
        return `reply ${i}: id ${JSON.stringify(got.id)}, expected ${JSON.stringify(e.id)}`;
      if (e.code === undefined ? !('result' in got) : got.error?.code !== e.code)
        return `reply ${i}: ${JSON.stringify(got).slice(0, 200)}`;
    }
    return undefined;
  };
  return mcpPost(
    'shape',
    legacy(w.s0, '2025-03-26'),
    `[${items.join(',')}]`,
    n > LIMITS.batch ? rpcError(400, -32600, null) : expected.length ? { status: 200, check } : { status: 202 },
  );
}
