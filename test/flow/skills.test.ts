/**
 * Skills served over MCP (SEP-2640) through the real Worker, KV and the Cache API, in both eras:
 * capabilities, skills/list and resources/list pages and cursors, skills/get, resources/read of text
 * and binary files (digest = SHA-256 of the bytes served, size = their length), unknown URIs, views
 * (a skill outside the caller's view is unknown to every method), SKILLS=off, modern cache hints,
 * the Mcp-Name check for resources/read, and the edge cache of files by digest.
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { digestOf } from '../../src/catalog/skills/file-store.js';
import type { SkillRecord, UpstreamSkill, UpstreamState } from '../../src/catalog/types.js';
import type { Principal } from '../../src/lib/scope.js';
import { app } from '../../src/routes/app.js';
import { BATCH_CONCURRENCY, MAX_BATCH_REPLY_CHARS } from '../../src/rpc/batch-runner.js';
import { modernPost as modernEntry } from '../../src/rpc/modern.js';
import { principal, scope } from '../helpers/principals.js';
import { envelope, MODERN } from '../helpers/protocol.js';
import { seedSkills, storeSkill } from '../helpers/skills.js';
import { countingEnv, expectError, MCP_URL, openSession, post, request, type Session } from '../helpers/worker.js';

const PNG = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='),
  (c) => c.charCodeAt(0),
);
/** Latin-1 text: named text/plain, but not UTF-8, so it must travel as a blob to keep its bytes. */
const LATIN1 = Uint8Array.from([0x63, 0x61, 0x66, 0xe9, 0x0a]);
/** Larger than the isolate keeps (256 KiB): each read goes to the edge cache or KV. */
const BIG = new Uint8Array(300 * 1024).map((_, i) => (i * 7) % 251);

const upstreamSkill = (mount: string, path: string, upstream: string, files: string[] = []): UpstreamSkill => ({
  uri: `skill://${mount}/${path}/SKILL.md`,
  frontmatter: { name: path.split('/').pop()!, description: `${path} from ${upstream}` },
  resources: ['SKILL.md', ...files].map((f, i) => ({
    uri: `skill://${mount}/${path}/${f}`,
    digest: `sha256:${String(i).repeat(64)}`,
    size: 10 + i,
  })),
  origin: { upstream, uri: `skill://${path}/SKILL.md` },
});

const state = (id: string, skills: UpstreamSkill[], extra: Partial<UpstreamState> = {}): UpstreamState => ({
  id,
  prefix: id,
  prompts: [],
  skills,
  digest: id,
  ok: true,
  lastSuccess: null,
  lastError: null,
  ...extra,
});

let pdf: SkillRecord;
let s: Session;

beforeAll(async () => {
  pdf = await storeSkill('pdf-tools', 'Fill and check PDF forms', [
    { path: 'references/FORMS.md', content: '# Forms\n\nField names, one per line. — ü\n' },
    { path: 'scripts/fill.py', content: 'print("fill")\n' },
    { path: 'assets/logo.png', content: PNG },
    { path: 'data/latin1.txt', content: LATIN1 },
    { path: 'data/big.bin', content: BIG },
  ]);
  await seedSkills(
    [
      await storeSkill('alpha', 'First skill'),
      await storeSkill('beta', 'Second skill'),
      await storeSkill('gamma', 'Third skill'),
      pdf,
      await storeSkill('secret-eng', 'Only for eng', [{ path: 'notes.md', content: 'eng notes\n' }], ['eng']),
    ],
    [
      // Stale (its upstream failed since), and one skill that claims a local skill's URI: the local one keeps it.
      state('gh', [upstreamSkill('gh', 'review', 'gh', ['notes.md'])], { ok: false }),
      state('alpha', [upstreamSkill('alpha', 'x', 'alpha')], { prefix: '' }),
      state('pdf', [upstreamSkill('pdf-tools', 'scripts', 'pdf', ['fill.py'])], { prefix: 'pdf-tools' }),
      state('ops', [upstreamSkill('ops', 'deploy', 'ops')], { groups: ['ops'] }),
    ],
  );
  s = await openSession('2025-11-25');
});

/** A modern request through SELF with the standard headers; Mcp-Name from params.uri or params.name unless given. */
async function modern(
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string | null> = {},
) {
  const h: Record<string, string | null> = { 'mcp-protocol-version': MODERN, 'mcp-method': method };
  const named = method === 'resources/read' ? params.uri : params.name;
  if (typeof named === 'string') h['mcp-name'] = named;
  Object.assign(h, headers);
  const sent = Object.fromEntries(Object.entries(h).filter((e): e is [string, string] => e[1] !== null));
  return post(request(method, { ...params, _meta: envelope() }), { headers: sent });
}

async function modernResult(method: string, params: Record<string, unknown> = {}) {
  const res = await modern(method, params);
  const body = (await res.json()) as any;
  expect(res.status, JSON.stringify(body)).toBe(200);
  if (body.error) throw new Error(JSON.stringify(body.error));
  return body.result;
}

async function legacyResult(method: string, params?: Record<string, unknown>) {
  const r = await s.call(method, params);
  if (r.body.error) throw new Error(JSON.stringify(r.body.error));
  return r.body.result;
}

/** Every page of a list, with the cursor each page gave. */
async function walk(call: (cursor?: string) => Promise<any>, field: string) {
  const pages: any[] = [];
  let cursor: string | undefined;
  do {
    const page = await call(cursor);
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor && pages.length < 10);
  return { pages, all: pages.flatMap((p) => p[field]) };
}

/** The bytes a resources/read content carries. */
function bytesOf(c: { text?: string; blob?: string }): Uint8Array {
  if (typeof c.text === 'string') return new TextEncoder().encode(c.text);
  return Uint8Array.from(atob(c.blob!), (ch) => ch.charCodeAt(0));
}

const VISIBLE = [
  'skill://alpha/SKILL.md',
  'skill://beta/SKILL.md',
  'skill://gamma/SKILL.md',
  'skill://gh/review/SKILL.md',
  'skill://pdf-tools/SKILL.md',
];

describe('capabilities', () => {
  it('initialize declares resources and the Skills extension', async () => {
    const res = await post(request('initialize', { protocolVersion: '2025-11-25', capabilities: {} }));
    const { result } = (await res.json()) as any;
    expect(result.capabilities.resources).toEqual({ listChanged: true });
    expect(result.capabilities.extensions).toEqual({ 'io.modelcontextprotocol/skills': {} });
  });
});

describe('skills/list', () => {
  it('legacy: pages of the configured size, sorted by URI, cursors to the end; no hints', async () => {
    const { pages, all } = await walk(
      (cursor) => legacyResult('skills/list', cursor ? { cursor } : undefined),
      'skills',
    );
    expect(pages.map((p) => p.skills.length)).toEqual([3, 2]);
    expect(all.map((e: any) => e.uri)).toEqual(VISIBLE);
    expect(pages[0].ttlMs).toBeUndefined();
    const entry = all.find((e: any) => e.uri === 'skill://pdf-tools/SKILL.md');
    expect(entry.frontmatter).toEqual({ name: 'pdf-tools', description: 'Fill and check PDF forms' });
    expect(entry._meta).toBeUndefined();
    expect(entry.resources).toEqual(
      pdf.files.map((f) => ({ uri: `skill://pdf-tools/${f.path}`, digest: f.digest, size: f.size })),
    );
    expect(entry.resources.map((r: any) => r.uri)).toContain('skill://pdf-tools/SKILL.md');
  });
  it('upstream skills carry origin and staleness under a reverse-domain _meta key; local skills win a folder', async () => {
    const { all } = await walk((cursor) => legacyResult('skills/list', cursor ? { cursor } : undefined), 'skills');
    const gh = all.find((e: any) => e.uri === 'skill://gh/review/SKILL.md');
    expect(gh._meta).toEqual({
      'dev.promptgate/origin': { upstream: 'gh', uri: 'skill://review/SKILL.md', stale: true },
    });
    expect(gh.resources.map((r: any) => r.uri)).toEqual(['skill://gh/review/SKILL.md', 'skill://gh/review/notes.md']);
    // Upstreams mounted where local skills live: a skill inside a local skill's folder is not served, and
    // reading its URIs reads the local skill's files, or nothing.
    expect(all.map((e: any) => e.uri)).not.toContain('skill://alpha/x/SKILL.md');
    expect(all.map((e: any) => e.uri)).not.toContain('skill://pdf-tools/scripts/SKILL.md');
    const fill = await legacyResult('resources/read', { uri: 'skill://pdf-tools/scripts/fill.py' });
    expect(fill.contents[0].text).toBe('print("fill")\n');
    expect((await s.call('resources/read', { uri: 'skill://alpha/x/SKILL.md' })).body.error.code).toBe(-32602);
    const alpha = all.find((e: any) => e.uri === 'skill://alpha/SKILL.md');
    expect(alpha._meta).toBeUndefined();
  });
  it('modern: resultType, ttlMs and cacheScope on every page; the cursor is bound to its list', async () => {
    const first = await modernResult('skills/list');
    expect(first).toMatchObject({ resultType: 'complete', ttlMs: 60_000, cacheScope: expect.any(String) });
    expect(first.skills.map((e: any) => e.uri)).toEqual(VISIBLE.slice(0, 3));
    const second = await modernResult('skills/list', { cursor: first.nextCursor });
    expect(second.skills.map((e: any) => e.uri)).toEqual(VISIBLE.slice(3));
    expect(second.nextCursor).toBeUndefined();
    expect(second.ttlMs).toBe(60_000);
    // A skills cursor is no prompts or resources cursor.
    for (const m of ['prompts/list', 'resources/list']) {
      const body = (await (await modern(m, { cursor: first.nextCursor })).json()) as any;
      expect(body.error.code, m).toBe(-32602);
    }
    const bad = (await (await modern('skills/list', { cursor: 'forged' })).json()) as any;
    expect(bad.error.code).toBe(-32602);
  });
});

describe('skills/get', () => {
  it('returns the list entry, without a cursor; modern adds the hints', async () => {
    const legacy = await legacyResult('skills/get', { uri: 'skill://pdf-tools/SKILL.md' });
    const { all } = await walk((cursor) => legacyResult('skills/list', cursor ? { cursor } : undefined), 'skills');
    expect(legacy).toEqual({ skill: all.find((e: any) => e.uri === 'skill://pdf-tools/SKILL.md') });
    const m = await modernResult('skills/get', { uri: 'skill://gh/review/SKILL.md' });
    expect(m.skill).toEqual(all.find((e: any) => e.uri === 'skill://gh/review/SKILL.md'));
    expect(m).toMatchObject({ resultType: 'complete', ttlMs: 60_000, cacheScope: expect.any(String) });
    expect(m.nextCursor).toBeUndefined();
  });
  it('-32602 with the URI in data for an unknown skill, a file that is not a SKILL.md, and a missing uri', async () => {
    for (const uri of ['skill://nope/SKILL.md', 'skill://pdf-tools/references/FORMS.md', 'skill://pdf-tools']) {
      const r = await s.call('skills/get', { uri });
      expect(r.body.error, uri).toMatchObject({ code: -32602, data: { uri } });
      const m = (await (await modern('skills/get', { uri })).json()) as any;
      expect(m.error, uri).toMatchObject({ code: -32602, data: { uri } });
    }
    expect((await s.call('skills/get', {})).body.error.code).toBe(-32602);
  });
});

describe('resources/list and resources/templates/list', () => {
  it('lists each visible SKILL.md as a Resource named by its front matter, paged, in both eras', async () => {
    const { pages, all } = await walk(
      (cursor) => legacyResult('resources/list', cursor ? { cursor } : undefined),
      'resources',
    );
    expect(pages.map((p) => p.resources.length)).toEqual([3, 2]);
    expect(all.map((r: any) => r.uri)).toEqual(VISIBLE);
    const manifestFile = pdf.files.find((f) => f.path === 'SKILL.md')!;
    expect(all.find((r: any) => r.uri === 'skill://pdf-tools/SKILL.md')).toEqual({
      uri: 'skill://pdf-tools/SKILL.md',
      name: 'pdf-tools',
      description: 'Fill and check PDF forms',
      mimeType: 'text/markdown',
      size: manifestFile.size,
    });
    expect(all.find((r: any) => r.uri === 'skill://gh/review/SKILL.md')._meta).toEqual({
      'dev.promptgate/origin': { upstream: 'gh', uri: 'skill://review/SKILL.md', stale: true },
    });
    const first = await modernResult('resources/list');
    expect(first).toMatchObject({ resultType: 'complete', ttlMs: 60_000, cacheScope: expect.any(String) });
    expect(first.resources).toEqual(pages[0].resources);
    // 2025-03-26 has no _meta on a Resource: the same entry without it.
    const old = await openSession('2025-03-26');
    const oldAll: any[] = [];
    for (let cursor: string | undefined, n = 0; n < 10; n++) {
      const r = (await old.call('resources/list', cursor ? { cursor } : {})).body.result;
      oldAll.push(...r.resources);
      if (!(cursor = r.nextCursor)) break;
    }
    const gh = oldAll.find((r: any) => r.uri === 'skill://gh/review/SKILL.md');
    expect(gh).toBeDefined();
    expect(gh._meta).toBeUndefined();
  });
  it('has no templates', async () => {
    expect(await legacyResult('resources/templates/list')).toEqual({ resourceTemplates: [] });
    expect(await modernResult('resources/templates/list')).toMatchObject({
      resourceTemplates: [],
      ttlMs: 60_000,
      cacheScope: 'public',
    });
  });
});

describe('resources/read', () => {
  it('serves every listed file with the digest and size the entry lists (text and binary), in both eras', async () => {
    const entry = (await legacyResult('skills/get', { uri: 'skill://pdf-tools/SKILL.md' })).skill;
    for (const listed of entry.resources) {
      for (const read of [legacyResult, modernResult]) {
        const r = await read('resources/read', { uri: listed.uri });
        expect(r.contents, listed.uri).toHaveLength(1);
        const c = r.contents[0];
        expect(c.uri).toBe(listed.uri);
        const bytes = bytesOf(c);
        expect(bytes.byteLength, listed.uri).toBe(listed.size);
        expect(await digestOf(bytes), listed.uri).toBe(listed.digest);
      }
    }
  });
  it('text types that are UTF-8 come as text, anything else as a base64 blob, each with its type', async () => {
    const read = async (path: string) =>
      (await legacyResult('resources/read', { uri: `skill://pdf-tools/${path}` })).contents[0];
    const md = await read('SKILL.md');
    expect(md).toEqual({
      uri: 'skill://pdf-tools/SKILL.md',
      mimeType: 'text/markdown',
      text: expect.stringMatching(/^---\nname: pdf-tools\n/),
    });
    expect(await read('references/FORMS.md')).toMatchObject({
      mimeType: 'text/markdown',
      text: expect.stringContaining('— ü'),
    });
    expect(await read('scripts/fill.py')).toMatchObject({ mimeType: 'text/x-python', text: 'print("fill")\n' });
    const png = await read('assets/logo.png');
    expect(png).toMatchObject({ mimeType: 'image/png', blob: expect.any(String) });
    expect(png.text).toBeUndefined();
    expect(await read('data/latin1.txt')).toEqual({
      uri: 'skill://pdf-tools/data/latin1.txt',
      mimeType: 'text/plain',
      blob: btoa(String.fromCharCode(...LATIN1)),
    });
  });
  it('modern results carry ttlMs and cacheScope', async () => {
    const r = await modernResult('resources/read', { uri: 'skill://alpha/SKILL.md' });
    expect(r).toMatchObject({ resultType: 'complete', ttlMs: 60_000, cacheScope: expect.any(String) });
  });
  it('an unknown URI: -32602 with exactly the URI as data, in both eras; never empty contents', async () => {
    for (const uri of [
      'skill://pdf-tools/nope.md',
      'skill://nope/SKILL.md',
      'test://nonexistent',
      'skill://pdf-tools',
    ]) {
      const r = await s.call('resources/read', { uri });
      expect(r.body.error, uri).toEqual({ code: -32602, message: expect.any(String), data: { uri } });
      const res = await modern('resources/read', { uri });
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).error, uri).toEqual({
        code: -32602,
        message: expect.any(String),
        data: { uri },
      });
    }
    expect((await s.call('resources/read', { uri: 42 })).body.error.code).toBe(-32602);
  });
});

describe('views', () => {
  const alice = principal('oauth:idp#alice', ['eng']);
  const bob = principal('oauth:idp#bob', ['ops']);
  const direct = async (p: Principal | undefined, method: string, params: Record<string, unknown> = {}) => {
    const headers: Record<string, string> = { 'mcp-protocol-version': MODERN, 'mcp-method': method };
    if (method === 'resources/read') headers['mcp-name'] = String(params.uri);
    const body = { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: envelope() } };
    return (await (await modernEntry(scope(p, { headers }), body)).json()) as any;
  };
  const listed = async (p: Principal | undefined, method: 'skills/list' | 'resources/list') => {
    const field = method === 'skills/list' ? 'skills' : 'resources';
    const { all } = await walk(async (cursor) => (await direct(p, method, cursor ? { cursor } : {})).result, field);
    return all.map((e: any) => e.uri);
  };

  it('a skill outside the view is in no list and unknown to every method, exactly like a missing one', async () => {
    const hidden = ['skill://secret-eng/SKILL.md', 'skill://ops/deploy/SKILL.md'];
    for (const m of ['skills/list', 'resources/list'] as const) {
      expect(await listed(undefined, m)).toEqual(VISIBLE);
      expect(await listed(alice, m)).toContain('skill://secret-eng/SKILL.md');
      expect(await listed(alice, m)).not.toContain('skill://ops/deploy/SKILL.md');
      expect(await listed(bob, m)).toContain('skill://ops/deploy/SKILL.md');
      expect(await listed(bob, m)).not.toContain('skill://secret-eng/SKILL.md');
    }
    for (const uri of [...hidden, 'skill://secret-eng/notes.md']) {
      const missing = uri.replace(/secret-eng|ops\/deploy/, 'missing');
      for (const method of ['skills/get', 'resources/read']) {
        if (method === 'skills/get' && !uri.endsWith('SKILL.md')) continue;
        const hiddenErr = (await direct(undefined, method, { uri })).error;
        const missingErr = (await direct(undefined, method, { uri: missing })).error;
        expect(hiddenErr, `${method} ${uri}`).toEqual({
          ...missingErr,
          message: missingErr.message.replace(missing, uri),
          data: { uri },
        });
        const legacy = (await s.call(method, { uri })).body.error;
        expect(legacy.data, `${method} ${uri}`).toEqual({ uri });
      }
    }
    expect((await direct(alice, 'skills/get', { uri: hidden[0] })).result.skill.uri).toBe(hidden[0]);
    const notes = (await direct(alice, 'resources/read', { uri: 'skill://secret-eng/notes.md' })).result;
    expect(notes.contents[0].text).toBe('eng notes\n');
    expect((await direct(bob, 'skills/get', { uri: hidden[1] })).result.skill.uri).toBe(hidden[1]);
    expect((await direct(bob, 'resources/read', { uri: 'skill://secret-eng/notes.md' })).error.code).toBe(-32602);
  });
  it('skill groups make the catalog grouped: every list is private', async () => {
    expect((await direct(undefined, 'skills/list')).result.cacheScope).toBe('private');
    expect((await direct(undefined, 'prompts/list')).result.cacheScope).toBe('private');
  });
});

describe('SKILLS=off', () => {
  const off = () => ({ ...env, SKILLS: 'off' }) as unknown as Env;
  async function send(body: unknown, headers: Record<string, string>) {
    const ctx = createExecutionContext();
    const res = await app.fetch(
      new Request(MCP_URL, {
        method: 'POST',
        headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }),
      off(),
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return res;
  }
  it('declares neither resources nor the extension, and every skills method is unknown', async () => {
    const init = await send(request('initialize', { protocolVersion: '2025-11-25', capabilities: {} }), {});
    const { result } = (await init.json()) as any;
    expect(result.capabilities.resources).toBeUndefined();
    expect(result.capabilities.extensions).toBeUndefined();
    const methods = ['skills/list', 'skills/get', 'resources/list', 'resources/templates/list', 'resources/read'];
    for (const method of methods) {
      const params = { uri: 'skill://alpha/SKILL.md', _meta: envelope() };
      const headers: Record<string, string> = { 'mcp-protocol-version': MODERN, 'mcp-method': method };
      if (method === 'resources/read') headers['mcp-name'] = params.uri;
      await expectError(await send(request(method, params), headers), 404, -32601);
    }
  });
});

describe('Mcp-Name for resources/read', () => {
  const uri = 'skill://alpha/SKILL.md';
  it('400 -32020 when it is missing or names another URI; a base64 sentinel of the URI is accepted', async () => {
    const missing = await expectError(await modern('resources/read', { uri }, { 'mcp-name': null }), 400, -32020);
    expect(missing.data.mismatch.header).toBe('Mcp-Name');
    const other = await expectError(
      await modern('resources/read', { uri }, { 'mcp-name': 'skill://beta/SKILL.md' }),
      400,
      -32020,
    );
    expect(other.data.mismatch.header).toBe('Mcp-Name');
    const sentinel = `=?base64?${btoa(uri)}?=`;
    const ok = await modern('resources/read', { uri }, { 'mcp-name': sentinel });
    expect(ok.status).toBe(200);
    // Methods that name nothing need no Mcp-Name; a name given for skills/get is not checked against uri.
    expect((await modern('skills/get', { uri })).status).toBe(200);
  });
});

describe('edge cache of files', () => {
  it('a file read once is served from the edge cache by digest, without KV', async () => {
    const big = pdf.files.find((f) => f.path === 'data/big.bin')!;
    const uri = 'skill://pdf-tools/data/big.bin';
    const read = async (e: Env) => {
      const ctx = createExecutionContext();
      const res = await app.fetch(
        new Request(MCP_URL, {
          method: 'POST',
          headers: {
            accept: 'application/json, text/event-stream',
            'content-type': 'application/json',
            'mcp-protocol-version': MODERN,
            'mcp-method': 'resources/read',
            'mcp-name': uri,
          },
          body: JSON.stringify(request('resources/read', { uri, _meta: envelope() })),
        }),
        e,
        ctx,
      );
      const body = (await res.json()) as any;
      await waitOnExecutionContext(ctx);
      return body.result.contents[0];
    };
    const hex = big.digest.slice('sha256:'.length);
    const first = countingEnv();
    const c1 = await read(first.env);
    expect(await digestOf(bytesOf(c1))).toBe(big.digest);
    const cached = await caches.default.match(`https://gateway.test/__promptgate/skill-files/${hex}`);
    expect(cached, 'the bytes are in the edge cache under their digest').toBeDefined();
    expect(cached!.headers.get('cache-control')).toContain('immutable');
    expect(new Uint8Array(await cached!.arrayBuffer())).toEqual(BIG);
    const second = countingEnv();
    const c2 = await read(second.env);
    expect(c2).toEqual(c1);
    expect(second.reads.filter((r) => r.includes('skills/files/'))).toEqual([]);
  });
});

describe('a 2025-03-26 batch of large reads', () => {
  it('runs within a reply budget: the reads past it are each answered with an error to send them alone', async () => {
    const old = await openSession('2025-03-26');
    const uri = 'skill://pdf-tools/data/big.bin';
    const items = Array.from({ length: 100 }, (_, i) => ({
      jsonrpc: '2.0',
      id: `read-${i}`,
      method: 'resources/read',
      params: { uri },
    }));
    const res = await post(items, { session: old.id, version: old.version });
    expect(res.status).toBe(200);
    const replies = await res.json<any[]>();
    // Every item answered once, in order; the first ones read, then the budget (8 Mi characters) turns the rest away.
    expect(replies.map((r) => r.id)).toEqual(items.map((i) => i.id));
    const served = replies.filter((r) => r.result).length;
    const perRead = JSON.stringify(replies[0]).length;
    expect(served).toBeGreaterThan(1);
    expect(served).toBeLessThanOrEqual(Math.ceil(MAX_BATCH_REPLY_CHARS / perRead) + BATCH_CONCURRENCY);
    expect(replies.slice(served).every((r) => r.error?.code === -32603 && /on its own/.test(r.error.message))).toBe(
      true,
    );
  });
});
