/**
 * Defects found by trying the gateway as a hostile user would (issue 11,
 * item 7), each pinned by a test that failed before its fix: names that
 * are also Object.prototype members, deeply nested bodies, and the limits
 * on prompts/get arguments and rendered output (docs/configuration.md "Limits").
 */
import { env, SELF } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { readGeneration } from '../../src/catalog/store.js';
import { openSession, post, publish, request, type Session } from '../helpers/worker.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';

const ADMIN = 'https://gateway.test/admin';
const TOKEN = 'test-admin-token';
const MODERN = '2026-07-28';

function admin(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const h: Record<string, string> = { authorization: `Bearer ${TOKEN}`, ...headers };
  if (body !== undefined) h['content-type'] = 'application/json';
  return SELF.fetch(ADMIN + path, {
    method,
    headers: h,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const PROTO_PROMPT = {
  name: 'proto_args',
  arguments: [
    { name: 'constructor', required: true },
    { name: 'toString' },
    { name: '__proto__' },
    { name: 'valueOf' },
  ],
  messages: [
    {
      role: 'user' as const,
      content: { type: 'text' as const, text: 'c={{constructor}} t={{toString}} p={{__proto__}} v={{valueOf}}' },
    },
  ],
};

const REPEAT = {
  name: 'repeat20',
  arguments: [{ name: 'a', required: true }, { name: 'b' }, { name: 'c' }],
  messages: [
    {
      role: 'user' as const,
      content: { type: 'text' as const, text: Array.from({ length: 20 }, () => '{{a}}').join('|') },
    },
  ],
};

/** The modern era's request for `method`, headers and envelope included. */
function modern(method: string, params: Record<string, unknown> = {}, id: number | string = 1) {
  const body = {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} },
    },
  };
  const headers: Record<string, string> = { 'mcp-protocol-version': MODERN, 'mcp-method': method };
  if (typeof params.name === 'string') headers['mcp-name'] = params.name;
  return post(body, { headers });
}

let session: Session;

beforeAll(async () => {
  await publish([...FIXTURE_PROMPTS, PROTO_PROMPT, REPEAT]);
  session = await openSession();
});

describe('names that are Object.prototype members', () => {
  it('a missing required argument named "constructor" is reported', async () => {
    const r = await session.call('prompts/get', { name: 'proto_args', arguments: {} });
    expect(r.body.error?.code).toBe(-32602);
    expect(r.body.error.message).toContain('"constructor"');
  });

  it('omitted optional arguments named toString, __proto__, valueOf render as empty text', async () => {
    const r = await session.call('prompts/get', { name: 'proto_args', arguments: { constructor: 'C' } });
    expect(r.body.result.messages[0].content.text).toBe('c=C t= p= v=');
  });

  it('given values for those names are used as they are', async () => {
    const r = await post(
      `{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"proto_args","arguments":{"constructor":"1","toString":"2","__proto__":"3","valueOf":"4"}}}`,
      { session: session.id, version: session.version },
    );
    const body = (await r.json()) as any;
    expect(body.result.messages[0].content.text).toBe('c=1 t=2 p=3 v=4');
  });

  it('completion of an argument named "constructor" or an undeclared "toString" is empty, not an error', async () => {
    for (const name of ['constructor', 'toString', '__proto__']) {
      const r = await session.call('completion/complete', {
        ref: { type: 'ref/prompt', name: 'proto_args' },
        argument: { name, value: '' },
      });
      expect(r.body.result.completion).toEqual({ values: [], total: 0, hasMore: false });
    }
  });

  it('prompt names "constructor", "toString" and "__proto__" are unknown until published, then served', async () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const r = await session.call('prompts/get', { name });
      expect(r.body.error?.code, name).toBe(-32602);
      expect((await SELF.fetch(`https://gateway.test/prompts/${name}`)).status, name).toBe(404);
    }
    const res = await admin('POST', '/publish', {
      prompts: ['__proto__', 'constructor'].map((name) => ({
        name,
        messages: [{ role: 'user', content: { type: 'text', text: `I am ${name}` } }],
      })),
    });
    expect(res.status).toBe(200);
    const written = (await res.json()) as any;
    expect(Object.keys(written.versions).sort()).toEqual(['__proto__', 'constructor']);
    for (const name of ['__proto__', 'constructor']) {
      const r = await session.call('prompts/get', { name });
      expect(r.body.result.messages[0].content.text).toBe(`I am ${name}`);
      const got = await admin('GET', `/prompts/${name}`);
      expect(got.status).toBe(200);
      expect(((await got.json()) as any).prompt.name).toBe(name);
    }
    // Put them back out of the way of the other tests' listings.
    for (const name of ['__proto__', 'constructor'])
      expect((await admin('DELETE', `/prompts/${name}`)).status).toBe(200);
  });
});

/** `{"a":{"a":…{}…}}`, `depth` levels deep. */
const nested = (depth: number) => '{"a":'.repeat(depth) + '{}' + '}'.repeat(depth);

describe('deeply nested bodies', () => {
  it('initialize with capabilities 3,000 levels deep is a 400 with the id, not a 500', async () => {
    const body = `{"jsonrpc":"2.0","id":"deep","method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":{"name":"x","version":"1"},"capabilities":${nested(3000)}}}`;
    expect(body.length).toBeGreaterThan(17_000);
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const json = (await res.json()) as any;
    expect(json.id).toBe('deep');
    expect(json.error.code).toBe(-32600);
  });

  it('a session keeps bounded state: wide capabilities and a huge clientInfo still give a small session id', async () => {
    const wide = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, { x: 'y'.repeat(10) }]));
    const res = await post(
      request('initialize', {
        protocolVersion: '2025-11-25',
        clientInfo: { name: 'n'.repeat(5000), version: 'v'.repeat(5000) },
        capabilities: wide,
      }),
    );
    expect(res.status).toBe(200);
    // Nothing of the capabilities is kept, and the client's label is cut: the id is all a session holds.
    const id = res.headers.get('mcp-session-id')!;
    expect(id).toMatch(/^[\x21-\x7e]{60,200}$/);
    const ping = await post(request('ping'), { session: id });
    expect(ping.status).toBe(200);
  });

  it('a modern request and an admin write nested 3,000 deep are 400s', async () => {
    const res = await post(
      `{"jsonrpc":"2.0","id":3,"method":"prompts/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"${MODERN}","io.modelcontextprotocol/clientCapabilities":${nested(3000)}}}}`,
      { headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'prompts/list' } },
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).id).toBe(3);
    const before = await readGeneration(env.PROMPTS);
    const w = await admin(
      'PUT',
      '/prompts/deep_one',
      `{"messages":[{"role":"user","content":{"type":"text","text":"x"}}],"x":${nested(3000)}}`,
    );
    expect(w.status).toBe(400);
    expect(((await w.json()) as any).error.code).toBe('invalid_json');
    expect(await readGeneration(env.PROMPTS)).toBe(before);
  });

  it('nesting within the limit is still served', async () => {
    const s = await openSession('2025-11-25', JSON.parse(nested(30)));
    const r = await s.call('ping');
    expect(r.body.result).toEqual({});
  });
});

describe('limits on prompts/get (vitest config: 64 arguments, 8 KiB each, 16 KiB in all, 64 KiB rendered)', () => {
  it('more arguments than MAX_ARGUMENTS is -32602 naming the limit (both eras)', async () => {
    const args = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`x${i}`, '']));
    const r = await session.call('prompts/get', { name: 'greet', arguments: { who: 'a', ...args } });
    expect(r.status).toBe(200);
    expect(r.body.error.code).toBe(-32602);
    expect(r.body.error.message).toMatch(/at most 64 arguments/);
    const m = await modern('prompts/get', { name: 'greet', arguments: { who: 'a', ...args } }, 'm1');
    const body = (await m.json()) as any;
    expect(body.id).toBe('m1');
    expect(body.error.code).toBe(-32602);
  });

  it('one argument over MAX_ARGUMENT_BYTES is -32602 naming it and the limit (UTF-8 bytes)', async () => {
    const r = await session.call('prompts/get', { name: 'greet', arguments: { who: 'é'.repeat(4097) } });
    expect(r.body.error.code).toBe(-32602);
    expect(r.body.error.message).toContain('"who"');
    expect(r.body.error.message).toContain('8192 bytes');
    expect(r.body.error.data).toMatchObject({ argument: 'who', limit: 8192 });
    const ok = await session.call('prompts/get', { name: 'greet', arguments: { who: 'é'.repeat(4096) } });
    expect(ok.body.result.messages).toEqual([
      { role: 'user', content: { type: 'text', text: `Say hello to ${'é'.repeat(4096)} in a  tone.` } },
    ]);
  });

  it('all arguments together over MAX_ARGUMENTS_BYTES is -32602 naming the limit', async () => {
    const v = 'x'.repeat(6000);
    const r = await session.call('prompts/get', { name: 'repeat20', arguments: { a: v, b: v, c: v } });
    expect(r.body.error.code).toBe(-32602);
    expect(r.body.error.message).toContain('16384 bytes');
  });

  it('a rendered result over MAX_RENDERED_BYTES is -32602, before it is built', async () => {
    const r = await session.call('prompts/get', { name: 'repeat20', arguments: { a: 'x'.repeat(4000) } });
    expect(r.body.error.code).toBe(-32602);
    expect(r.body.error.message).toContain('65536 bytes');
    const ok = await session.call('prompts/get', { name: 'repeat20', arguments: { a: 'x'.repeat(3000) } });
    expect(ok.body.result.messages[0].content.text.length).toBe(20 * 3000 + 19);
  });

  it('values containing {{placeholders}} are inserted as text, never re-expanded', async () => {
    const r = await session.call('prompts/get', { name: 'repeat20', arguments: { a: '{{a}}{{b}}', b: 'B' } });
    expect(r.body.result.messages[0].content.text.split('|')[0]).toBe('{{a}}{{b}}');
  });

  it('a completion value over MAX_ARGUMENT_BYTES is -32602', async () => {
    const r = await session.call('completion/complete', {
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'who', value: 'a'.repeat(9000) },
    });
    expect(r.body.error.code).toBe(-32602);
  });
});

describe('admin tokens', () => {
  it('a burst of wrong tokens from one client gets 429 with Retry-After, then that client is locked out; others are not', async () => {
    const ip = '198.51.100.7';
    const statuses: number[] = [];
    // Fixed windows: two of them can admit at most 2 × the test limit (10) before a 429.
    for (let i = 0; i < 21 && !statuses.includes(429); i++) {
      const res = await SELF.fetch(`${ADMIN}/prompts`, {
        headers: { authorization: `Bearer wrong-${i}`, 'cf-connecting-ip': ip },
      });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.headers.get('retry-after')).toBe('60');
        expect(((await res.json()) as any).error.code).toBe('locked_out');
      } else await res.body?.cancel();
    }
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    // Locked out: even the right token from that client waits out the window.
    const locked = await admin('GET', '/prompts', undefined, { 'cf-connecting-ip': ip });
    expect(locked.status).toBe(429);
    const other = await admin('GET', '/prompts', undefined, { 'cf-connecting-ip': '198.51.100.8' });
    expect(other.status).toBe(200);
  });

  it('requests with no bearer at /admin are 401 but no guess: another site’s <img>s cannot lock the client out', async () => {
    const ip = '198.51.100.27';
    for (let i = 0; i < 25; i++) {
      const res = await SELF.fetch(`${ADMIN}/prompts`, { headers: { 'cf-connecting-ip': ip } });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="promptgate-admin"');
      expect(((await res.json()) as any).error.code).toBe('unauthorized');
    }
    expect((await admin('GET', '/prompts', undefined, { 'cf-connecting-ip': ip })).status).toBe(200);
  });

  it('wrong opaque bearers anywhere count towards the lock-out: guessing ADMIN_TOKEN at /prompts stops too', async () => {
    const ip = '198.51.100.17';
    const statuses: number[] = [];
    for (let i = 0; i < 21 && !statuses.includes(429); i++) {
      // AUTH=none here: a wrong bearer is let in as anonymous (200), which tells a guesser it was wrong.
      const res = await SELF.fetch('https://gateway.test/prompts', {
        headers: { authorization: `Bearer guess-${i}`, 'cf-connecting-ip': ip },
      });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s !== 200 && s !== 401 && s !== 429)).toEqual([]);
    // Locked out everywhere, the right token included: /admin, /prompts, /status, and /mcp in its own shape.
    const right = { authorization: `Bearer ${TOKEN}`, 'cf-connecting-ip': ip };
    for (const path of ['/admin/prompts', '/prompts', '/status']) {
      const res = await SELF.fetch(`https://gateway.test${path}`, { headers: right });
      expect(res.status, path).toBe(429);
      await res.body?.cancel();
    }
    const mcp = await post(request('ping'), { headers: right });
    expect(mcp.status).toBe(429);
    expect(((await mcp.json()) as any).error.code).toBe(-32000);
    // Without a bearer the client is served as anyone is; another client's token still works.
    expect((await SELF.fetch('https://gateway.test/prompts', { headers: { 'cf-connecting-ip': ip } })).status).toBe(
      200,
    );
    const other = await admin('GET', '/prompts', undefined, { 'cf-connecting-ip': '198.51.100.18' });
    expect(other.status).toBe(200);
  });

  it('bearers that share a 32-bit hash are separate guesses: no bucket of them escapes the lock-out', async () => {
    // Eight pairs with equal FNV-1a 32-bit hashes: one guess per bucket would be 8, under the limit.
    const pairs = [
      ['guess-379bb', 'guess-74848'],
      ['guess-379bc', 'guess-74849'],
      ['guess-379b8', 'guess-7484b'],
      ['guess-379b9', 'guess-7484c'],
      ['guess-3788f', 'guess-749f0'],
      ['guess-3788d', 'guess-749f2'],
      ['guess-3788e', 'guess-749f3'],
      ['guess-3788b', 'guess-749f4'],
    ];
    const ip = '198.51.100.23';
    const statuses: number[] = [];
    for (const bearer of [...pairs.map((p) => p[0]!), ...pairs.map((p) => p[1]!)]) {
      const res = await SELF.fetch('https://gateway.test/prompts', {
        headers: { authorization: `Bearer ${bearer}`, 'cf-connecting-ip': ip },
      });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    expect(statuses).toContain(429);
  });

  it('one bearer repeated is one guess: a client with a leftover header is never locked out', async () => {
    const ip = '198.51.100.21';
    for (let i = 0; i < 25; i++) {
      const res = await SELF.fetch('https://gateway.test/prompts', {
        headers: { authorization: 'Bearer left-over-from-another-gateway', 'cf-connecting-ip': ip },
      });
      expect(res.status).toBe(200);
      await res.body?.cancel();
    }
    expect(
      (await post(request('ping'), { headers: { authorization: 'Bearer left-over', 'cf-connecting-ip': ip } })).status,
    ).not.toBe(429);
  });

  it('JWTs and API keys that fail are not guesses at the token: no lock-out, however often', async () => {
    const ip = '198.51.100.19';
    for (let i = 0; i < 25; i++) {
      for (const bearer of [`eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiIke2l9In0.c2ln${i}`, `pg_${'A'.repeat(40)}${i}`]) {
        const res = await SELF.fetch('https://gateway.test/prompts', {
          headers: { authorization: `Bearer ${bearer}`, 'cf-connecting-ip': ip },
        });
        expect(res.status).not.toBe(429);
        await res.body?.cancel();
      }
    }
  });

  it('a token one character off, shorter or longer is a 401', async () => {
    for (const token of [TOKEN.slice(0, -1) + 'X', TOKEN.slice(0, -1), `${TOKEN}x`, '']) {
      const res = await SELF.fetch(`${ADMIN}/prompts`, {
        headers: { authorization: `Bearer ${token}`, 'cf-connecting-ip': '198.51.100.9' },
      });
      expect(res.status, token).toBe(401);
    }
  });
});
