/**
 * The admin API and the single catalog writer: auth, validation, atomic
 * publish with dry-run and prune, every version kept, rollback, and 100
 * concurrent publishes that lose nothing.
 */
import { env, runInDurableObject, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { readGeneration } from '../../src/catalog/store.js';
import { writerObject } from '../../src/catalog/stubs.js';
import { MAX_CATALOG_BYTES } from '../../src/catalog/versioned-writes.js';
import { MAX_UPSTREAMS } from '../../src/catalog/upstreams/parse.js';
import { HISTORY_PAGE_BYTES, LIST_PAGE_BYTES, MAX_VERSIONS_LISTED } from '../../src/catalog/versions-table.js';
import { ADMIN_BASE, ADMIN_TOKEN, adminFetch, openSession } from '../helpers/worker.js';

const BASE = ADMIN_BASE;
const TOKEN = ADMIN_TOKEN;
const admin = adminFetch;

const text = (name: string, t: string, extra: Record<string, unknown> = {}) => ({
  name,
  ...extra,
  messages: [{ role: 'user', content: { type: 'text', text: t } }],
});

describe('auth', () => {
  it('401 JSON without the right token, and nothing is written', async () => {
    const before = await readGeneration(env.PROMPTS);
    for (const token of [null, 'wrong', `${TOKEN}x`]) {
      const res = await admin('POST', '/publish', { prompts: [text('auth_probe', 'x')] }, token);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('Bearer');
      expect(((await res.json()) as any).error.code).toBe('unauthorized');
    }
    expect(await readGeneration(env.PROMPTS)).toBe(before);
    const probe = await admin('GET', '/prompts/auth_probe');
    expect(probe.status).toBe(404);
  });
});

describe('every admin answer', () => {
  it('is no-store: reads, writes, a skill file download and errors alike', async () => {
    const bytes = new TextEncoder().encode('# no-store probe\n');
    const digest = `sha256:${[...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
    const file = (method: string) =>
      SELF.fetch(`${BASE}/skills/files/${digest}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/octet-stream' },
        ...(method === 'PUT' && { body: bytes }),
      });
    const answers: [string, Response][] = [
      ['publish', await admin('POST', '/publish', { prompts: [text('no_store_probe', 'x')] })],
      ['list', await admin('GET', '/prompts')],
      ['one', await admin('GET', '/prompts/no_store_probe')],
      ['history', await admin('GET', '/prompts/no_store_probe/history')],
      ['upstreams', await admin('GET', '/upstreams')],
      ['uploads', await admin('GET', '/uploads')],
      ['file put', await file('PUT')],
      ['file get', await file('GET')],
      ['not found', await admin('GET', '/prompts/no_such_prompt')],
      ['unauthorized', await admin('GET', '/prompts', undefined, 'wrong')],
    ];
    for (const [what, res] of answers) {
      expect(res.status, what).toBeLessThan(what === 'not found' || what === 'unauthorized' ? 500 : 300);
      expect(res.headers.get('cache-control'), what).toBe('no-store');
      await res.body?.cancel();
    }
  });
});

describe('a write from another site’s page', () => {
  // A form posted cross-site carries the signed-in admin's Access cookie by itself; a bearer is used here.
  const post = (headers: Record<string, string>) =>
    SELF.fetch(`${BASE}/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/plain', ...headers },
      body: 'x',
    });
  const open = async () => (await (await admin('GET', '/uploads')).json<{ uploads: unknown[] }>()).uploads.length;

  it('is refused 403 before it is authenticated, and opens nothing', async () => {
    const before = await open();
    const refused: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'https://gateway.test', 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of refused) {
      const res = await post(headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(((await res.json()) as any).error.code).toBe('cross_site');
    }
    expect(await open()).toBe(before);
    // The gateway's own origin, and an API client that sends none, write as before; reads are not affected.
    const made = [await post({ origin: new URL(BASE).origin, 'sec-fetch-site': 'same-origin' }), await post({})];
    expect(made.map((r) => r.status)).toEqual([201, 201]);
    const read = await SELF.fetch(`${BASE}/uploads`, {
      headers: { authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example' },
    });
    expect(read.status).toBe(200);
    expect(await open()).toBe(before + 2);
    for (const r of made) {
      const { upload } = await r.json<{ upload: { id: string } }>();
      expect((await admin('DELETE', `/uploads/${upload.id}`)).status).toBe(204);
    }
  });
});

describe('writes', () => {
  it('an invalid file in a set publishes nothing, and says which and why', async () => {
    const before = await readGeneration(env.PROMPTS);
    const res = await admin('POST', '/publish', {
      prompts: [text('valid_one', 'fine'), { name: 'bad one', messages: [] }],
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as any;
    expect(body.error.issues).toEqual(
      expect.arrayContaining([
        { path: 'prompts[1]: name', message: expect.stringContaining('may only use') },
        { path: 'prompts[1]: messages', message: 'must be a non-empty list' },
      ]),
    );
    expect(await readGeneration(env.PROMPTS)).toBe(before);
    expect((await admin('GET', '/prompts/valid_one')).status).toBe(404);
  });
  it('dry-run returns the diff and writes nothing; prune deletes what is missing', async () => {
    await admin('POST', '/publish?prune=1', { prompts: [text('keep', 'k'), text('drop', 'd')] });
    const dry = (await (
      await admin('POST', '/publish?prune=1&dry_run=1', { prompts: [text('keep', 'k2'), text('fresh', 'f')] })
    ).json()) as any;
    expect(dry.diff).toEqual({ added: ['fresh'], changed: ['keep'], removed: ['drop'], unchanged: [] });
    expect(dry.dryRun).toBe(true);
    expect(((await (await admin('GET', '/prompts/keep')).json()) as any).prompt.messages[0].content.text).toBe('k');
    const real = (await (
      await admin('POST', '/publish?prune=1', { prompts: [text('keep', 'k2'), text('fresh', 'f')] })
    ).json()) as any;
    expect(real.diff.removed).toEqual(['drop']);
    const names = ((await (await admin('GET', '/prompts')).json()) as any).prompts.map((p: any) => p.name);
    expect(names).toEqual(['fresh', 'keep']);
    // The MCP side sees exactly the published set.
    const s = await openSession();
    expect((await s.call('prompts/list')).body.result.prompts.map((p: any) => p.name)).toEqual(['fresh', 'keep']);
  });
  it('a stored version in another key order is the same content: publishing it again writes nothing', async () => {
    await admin('POST', '/publish', { prompts: [text('reordered', 'same')] });
    // The row as an older writer might have stored it: the same record, keys in another order.
    await runInDurableObject(writerObject(env), (_o, ctx) => {
      const row = ctx.storage.sql
        .exec<{ record: string }>("SELECT record FROM versions WHERE name = 'reordered'")
        .one();
      const parsed = JSON.parse(row.record) as Record<string, unknown>;
      const reversed = Object.fromEntries(Object.entries(parsed).reverse());
      expect(JSON.stringify(reversed)).not.toBe(row.record);
      ctx.storage.sql.exec("UPDATE versions SET record = ? WHERE name = 'reordered'", JSON.stringify(reversed));
    });
    const again = (await (await admin('POST', '/publish', { prompts: [text('reordered', 'same')] })).json()) as any;
    expect(again.diff.unchanged).toContain('reordered');
    expect(again.diff.changed).toEqual([]);
    expect(((await (await admin('GET', '/prompts/reordered')).json()) as any).versions).toHaveLength(1);
  });
  it('a misspelt or unreadable flag is a 400 that writes nothing, never a real publish; a bare flag is on', async () => {
    await admin('POST', '/publish?prune=1', { prompts: [text('keep', 'k'), text('drop', 'd')] });
    const before = await readGeneration(env.PROMPTS);
    const set = { prompts: [text('keep', 'k2')] };
    for (const [method, path] of [
      ['POST', '/publish?prune=1&dry-run=1'],
      ['POST', '/publish?prune=1&dryRun=1'],
      ['POST', '/publish?prune=1&dry_run=on'],
      ['POST', '/publish?dry_run=1&prune=1&prune=0'],
      ['PUT', '/catalog?dry_run=1'],
      ['POST', '/skills/publish?prune=1&dry-run=1'],
    ] as const) {
      const res = await admin(method, path, path.startsWith('/skills') ? { skills: [] } : set);
      expect(res.status, path).toBe(400);
      expect(await res.json(), path).toMatchObject({ error: { code: 'invalid_query' } });
    }
    expect(await readGeneration(env.PROMPTS)).toBe(before);
    expect((await admin('GET', '/prompts/drop')).status).toBe(200);
    const bare = (await (await admin('POST', '/publish?prune&dry_run', set)).json()) as any;
    expect(bare).toMatchObject({ dryRun: true, diff: { removed: ['drop'] } });
    expect(await readGeneration(env.PROMPTS)).toBe(before);
  });
  it('answers a failure nobody foresaw with the {error} body (500 internal), not a JSON-RPC error', async () => {
    // A real failure of the real writer: a stored version it cannot read.
    const corrupt = (sql: string) => runInDurableObject(writerObject(env), (_o, ctx) => void ctx.storage.sql.exec(sql));
    await corrupt(
      "INSERT INTO versions (name, version, generation, record, created_at) VALUES ('corrupt_row', 1, 1, '{not json', 0)",
    );
    try {
      const res = await admin('GET', '/prompts/corrupt_row');
      expect(res.status).toBe(500);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ error: { code: 'internal', message: 'Internal error' } });
    } finally {
      await corrupt("DELETE FROM versions WHERE name = 'corrupt_row'");
    }
  });
  it('put, delete and history keep every version, deletions included', async () => {
    await admin('PUT', '/prompts/hist', text('hist', 'one'));
    await admin('PUT', '/prompts/hist', text('hist', 'two'));
    expect((await admin('DELETE', '/prompts/hist')).status).toBe(200);
    expect((await admin('DELETE', '/prompts/hist')).status).toBe(404);
    await admin('PUT', '/prompts/hist', text('hist', 'three'));
    const { history } = (await (await admin('GET', '/prompts/hist/history')).json()) as any;
    expect(history.map((h: any) => [h.version, h.deleted, h.record?.messages[0].content.text ?? null])).toEqual([
      [1, false, 'one'],
      [2, false, 'two'],
      [3, true, null],
      [4, false, 'three'],
    ]);
    const mismatch = await admin('PUT', '/prompts/hist', text('other', 'x'));
    expect(mismatch.status).toBe(400);
  });
  it('history comes a page at a time, newest page first, each oldest first, to the very first version', async () => {
    for (let i = 1; i <= 7; i++)
      expect((await admin('PUT', '/prompts/paged', text('paged', `v${i}`))).status).toBe(200);
    const page = async (q: string) => (await (await admin('GET', `/prompts/paged/history${q}`)).json()) as any;
    const versionsOf = (p: any) => p.history.map((v: any) => v.version);
    const first = await page('?limit=3');
    expect(versionsOf(first)).toEqual([5, 6, 7]);
    expect(first.next).toBe(5);
    const second = await page(`?limit=3&before=${first.next}`);
    expect(versionsOf(second)).toEqual([2, 3, 4]);
    const last = await page(`?limit=3&before=${second.next}`);
    expect(versionsOf(last)).toEqual([1]);
    expect(last.next).toBeUndefined();
    expect(last.history[0].record.messages[0].content.text).toBe('v1');
    // Without a limit: the newest 100, here all of them.
    expect(versionsOf(await page(''))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    for (const bad of ['?limit=0', '?limit=1001', '?limit=x', '?before=0', '?before=1.5']) {
      const res = await admin('GET', `/prompts/paged/history${bad}`);
      expect(res.status, bad).toBe(400);
      expect(((await res.json()) as any).error.code).toBe('invalid_query');
    }
    expect((await admin('GET', '/prompts/never_written/history')).status).toBe(404);
    // A page past a name's first version is empty, not unknown; a name never written is 404 whatever the page.
    const past = await admin('GET', '/prompts/paged/history?before=1');
    expect(past.status).toBe(200);
    expect(((await past.json()) as any).history).toEqual([]);
    for (const q of ['?before=5', '?before=5&facts=1', '?facts=1']) {
      const res = await admin('GET', `/prompts/never_written/history${q}`);
      expect(res.status, q).toBe(404);
      expect(((await res.json()) as any).error.code, q).toBe('not_found');
      expect((await admin('GET', `/skills/never-written/history${q}`)).status, q).toBe(404);
    }
  });
  it('a history page holds at most HISTORY_PAGE_BYTES of prompt text (at least one version), so it fits in memory', async () => {
    const image = (i: number) => ({
      type: 'image',
      mimeType: 'image/png',
      data: String.fromCharCode(65 + i).repeat(1_800_000),
    });
    const big = (i: number) => ({ name: 'bulky', messages: [{ role: 'user', content: image(i) }] });
    for (let i = 1; i <= 5; i++) expect((await admin('PUT', '/prompts/bulky', big(i))).status).toBe(200);
    const first = (await (await admin('GET', '/prompts/bulky/history')).json()) as any;
    const versions = first.history.map((v: any) => v.version);
    expect(versions.length).toBe(Math.floor(HISTORY_PAGE_BYTES / 1_800_000));
    expect(versions.at(-1)).toBe(5);
    const rest = (await (await admin('GET', `/prompts/bulky/history?before=${first.next}`)).json()) as any;
    expect([...rest.history.map((v: any) => v.version), ...versions]).toEqual([1, 2, 3, 4, 5]);
    expect((await admin('DELETE', '/prompts/bulky')).status).toBe(200);
  });
  it("one prompt's answer lists its newest MAX_VERSIONS_LISTED versions, and counts the older ones its history pages to", async () => {
    expect((await admin('PUT', '/prompts/many', text('many', 'v1'))).status).toBe(200);
    const extra = 7;
    // Published on every commit for years: the rest of its versions, as the writer records them.
    await runInDurableObject(writerObject(env), (_o, ctx) => {
      const record = JSON.stringify(text('many', 'later'));
      for (let v = 2; v <= MAX_VERSIONS_LISTED + extra; v++)
        ctx.storage.sql.exec(
          'INSERT INTO versions (name, version, generation, record, created_at, "by") VALUES (?, ?, 1, ?, ?, NULL)',
          'many',
          v,
          record,
          v,
        );
    });
    try {
      const one = await (
        await admin('GET', '/prompts/many')
      ).json<{ version: number; versions: { version: number }[]; older?: number }>();
      expect(one.version).toBe(MAX_VERSIONS_LISTED + extra);
      expect(one.versions).toHaveLength(MAX_VERSIONS_LISTED);
      // Oldest first, ending with the current one; the `older` before them are the history's.
      expect(one.versions[0]!.version).toBe(extra + 1);
      expect(one.versions.at(-1)!.version).toBe(MAX_VERSIONS_LISTED + extra);
      expect(one.older).toBe(extra);
      const before = await (
        await admin('GET', `/prompts/many/history?before=${extra + 1}`)
      ).json<{ history: { version: number }[] }>();
      expect(before.history.map((v) => v.version)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    } finally {
      await runInDurableObject(
        writerObject(env),
        (_o, ctx) => void ctx.storage.sql.exec("DELETE FROM versions WHERE name = 'many' AND version > 1"),
      );
    }
    expect((await (await admin('GET', '/prompts/many')).json<{ older?: number }>()).older).toBeUndefined();
  });
  it('?facts=1 pages a history without its records, so a version list reads no text', async () => {
    for (const t of ['one', 'two', 'three'])
      expect((await admin('PUT', '/prompts/factual', text('factual', t))).status).toBe(200);
    const page = await (
      await admin('GET', '/prompts/factual/history?facts=1&limit=2')
    ).json<{ history: Record<string, unknown>[]; next?: number }>();
    expect(page.history.map((v) => v.version)).toEqual([2, 3]);
    expect(page.history.every((v) => !('record' in v) && typeof v.createdAt === 'string')).toBe(true);
    const rest = await (
      await admin('GET', `/prompts/factual/history?facts=1&before=${page.next}`)
    ).json<{ history: Record<string, unknown>[]; next?: number }>();
    expect(rest).toEqual({ name: 'factual', history: [expect.objectContaining({ version: 1 })] });
    // Without it, the records come too; a flag that is not 0 or 1 is refused.
    const whole = await (await admin('GET', '/prompts/factual/history')).json<{ history: Record<string, unknown>[] }>();
    expect(whole.history.every((v) => 'record' in v)).toBe(true);
    expect((await admin('GET', '/prompts/factual/history?facts=yes')).status).toBe(400);
  });
  it('the current prompts are listed in pages by name: ?limit, ?after, and next until the last page', async () => {
    const names = ['page_a', 'page_b', 'page_c', 'page_d', 'page_e'];
    expect((await admin('POST', '/publish', { prompts: names.map((n) => text(n, n)) })).status).toBe(200);
    const whole = (await (await admin('GET', '/prompts')).json()) as any;
    expect(whole.next).toBeUndefined();
    const all = whole.prompts.map((p: any) => p.name);
    expect(all).toEqual(expect.arrayContaining(names));
    const paged: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      const res = await admin('GET', `/prompts?limit=2${after ? `&after=${encodeURIComponent(after)}` : ''}`);
      const page = (await res.json()) as any;
      expect(page.prompts.length).toBeLessThanOrEqual(2);
      paged.push(...page.prompts.map((p: any) => p.name));
      after = page.next;
      pages++;
    } while (after);
    expect(paged).toEqual(all);
    expect(pages).toBe(Math.ceil(all.length / 2));
    expect([...all].sort()).toEqual(all);
    for (const bad of ['limit=0', 'limit=1001', 'limit=x', 'after='])
      expect((await admin('GET', `/prompts?${bad}`)).status, bad).toBe(400);
  });
  it('a listing page holds at most LIST_PAGE_BYTES of prompt text (at least one prompt)', async () => {
    const big = (i: number) => ({
      name: `listed_bulk_${i}`,
      messages: [{ role: 'user', content: { type: 'image', mimeType: 'image/png', data: 'Q'.repeat(1_800_000) } }],
    });
    for (let i = 1; i <= 6; i++) expect((await admin('PUT', `/prompts/listed_bulk_${i}`, big(i))).status).toBe(200);
    const first = (await (await admin('GET', '/prompts?after=listed_bulk_0')).json()) as any;
    const bulky = first.prompts.filter((p: any) => p.name.startsWith('listed_bulk_'));
    expect(bulky.length).toBe(Math.floor(LIST_PAGE_BYTES / 1_800_000));
    expect(first.next).toBe(bulky.at(-1).name);
    const rest = (await (await admin('GET', `/prompts?after=${first.next}`)).json()) as any;
    expect([...bulky, ...rest.prompts.filter((p: any) => p.name.startsWith('listed_bulk_'))]).toHaveLength(6);
    for (let i = 1; i <= 6; i++) expect((await admin('DELETE', `/prompts/listed_bulk_${i}`)).status).toBe(200);
  });
  it('rollback restores the exact old text as a new version', async () => {
    const original = text('rb', '  Exact text\n\twith  spacing {{x}}\n', {
      arguments: [{ name: 'x' }],
      description: 'v1',
    });
    await admin('PUT', '/prompts/rb', original);
    await admin('PUT', '/prompts/rb', text('rb', 'replaced'));
    const res = await admin('POST', '/prompts/rb/rollback', { version: 1 });
    expect(((await res.json()) as any).versions).toEqual({ rb: 3 });
    const now = ((await (await admin('GET', '/prompts/rb')).json()) as any).prompt;
    expect(now).toEqual(original);
    expect((await admin('POST', '/prompts/rb/rollback', { version: 9 })).status).toBe(404);
    expect((await admin('POST', '/prompts/rb/rollback', { version: 'x' })).status).toBe(400);
  });
  it("rollback to a version today's rules refuse is 422 with the issues, and writes nothing", async () => {
    // A version recorded before a rule was tightened: a role no prompt may have today.
    const stale = JSON.stringify({
      name: 'rb_old',
      messages: [{ role: 'system', content: { type: 'text', text: 'old' } }],
    });
    await runInDurableObject(writerObject(env), (_o, ctx) => {
      ctx.storage.sql.exec(
        "INSERT INTO versions (name, version, generation, record, created_at) VALUES ('rb_old', 1, 1, ?, 0)",
        stale,
      );
    });
    expect((await admin('PUT', '/prompts/rb_old', text('rb_old', 'current'))).status).toBe(200);
    const res = await admin('POST', '/prompts/rb_old/rollback', { version: 1 });
    expect(res.status).toBe(422);
    expect(((await res.json()) as any).error.issues[0].path).toBe('messages[0].role');
    const now = (await (await admin('GET', '/prompts/rb_old')).json()) as any;
    expect(now.version).toBe(2);
    expect(now.prompt.messages[0].content.text).toBe('current');
  });
  it('100 concurrent publishes from several clients lose no update; the last applied wins', async () => {
    const clients = 4;
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        admin('PUT', '/prompts/race', text('race', `client ${i % clients} write ${i}`)).then(async (r) =>
          expect(r.status, await r.text()).toBe(200),
        ),
      ),
    );
    const { history } = (await (await admin('GET', '/prompts/race/history')).json()) as any;
    expect(history).toHaveLength(100);
    const texts = history.map((h: any) => h.record.messages[0].content.text);
    expect(new Set(texts).size).toBe(100);
    const current = ((await (await admin('GET', '/prompts/race')).json()) as any).prompt.messages[0].content.text;
    expect(current).toBe(texts[99]);
    const generations = history.map((h: any) => h.generation);
    expect([...generations].sort((a: number, b: number) => a - b)).toEqual(generations);
    // And the edge serves the winner.
    const s = await openSession();
    expect((await s.call('prompts/get', { name: 'race' })).body.result.messages[0].content.text).toBe(current);
  });
  it('clear JSON errors for bad bodies', async () => {
    const raw = (body: string, type = 'application/json') =>
      SELF.fetch(`${BASE}/publish`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': type },
        body,
      });
    expect((await raw('{')).status).toBe(400);
    expect((await raw('{}')).status).toBe(400);
    expect((await raw('x', 'text/plain')).status).toBe(415);
    expect(
      (await raw(JSON.stringify({ prompts: Array.from({ length: 2001 }, (_, i) => text(`p${i}`, 'x')) }))).status,
    ).toBe(413);
    const bad = await admin('GET', '/prompts/bad%20name');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.code).toBe('invalid_name');
  });
  it('a body that is not UTF-8 is refused (400), not stored with U+FFFD in its text', async () => {
    const json = new TextEncoder().encode(JSON.stringify(text('utf8_probe', 'caf\u00e9 Z')));
    const bytes = json.map((b, i) => (b === 0x5a && json[i - 1] === 0x20 ? 0xff : b)); // the Z becomes 0xFF
    const res = await SELF.fetch(`${BASE}/prompts/utf8_probe`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: bytes,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'invalid_json', message: 'The body is not valid UTF-8' } });
    expect((await admin('GET', '/prompts/utf8_probe')).status).toBe(404);
  });
  it('a name starting with a dot is refused: no URL path or file name could reach it again', async () => {
    for (const name of ['.hidden', '..', '.']) {
      const res = await admin('POST', '/publish', { prompts: [text(name, 'x')] });
      expect(res.status).toBe(422);
      expect(((await res.json()) as any).error.issues[0].message).toContain('may not start with a dot');
    }
    expect((await admin('GET', '/prompts/.hidden')).status).toBe(400);
  });
  it("an upstream list naming the gateway's own secrets is refused (422) and not stored: they never go upstream", async () => {
    const before = await (await admin('GET', '/upstreams')).text();
    const leak = [
      { id: 'x', url: 'https://attacker.example/mcp', headers: { 'x-leak': '${ADMIN_TOKEN}|${SIGNING_SECRET}' } },
    ];
    const res = await admin('PUT', '/upstreams', leak);
    const text = await res.text();
    expect(res.status, text).toBe(422);
    expect(text).toContain("ADMIN_TOKEN is one of the gateway's own secrets");
    expect(text).toContain("SIGNING_SECRET is one of the gateway's own secrets");
    expect(text).not.toContain(TOKEN);
    expect(await (await admin('GET', '/upstreams')).text()).toBe(before);
  });
  it('an upstream list of a million bad entries is refused with its first problems and a count, not every one', async () => {
    const res = await admin(
      'PUT',
      '/upstreams',
      Array.from({ length: 200_000 }, () => 0),
    );
    expect(res.status).toBe(422);
    const { error } = await res.json<{ error: { code: string; issues: string[] } }>();
    expect(error.code).toBe('invalid_upstreams');
    // Entries past MAX_UPSTREAMS are not read: the bound is their one problem.
    expect(error.issues).toHaveLength(MAX_UPSTREAMS + 1);
    expect(error.issues[0]).toBe(
      `UPSTREAMS: 200000 upstreams, at most ${MAX_UPSTREAMS}: UPSTREAMS[${MAX_UPSTREAMS}] and later are left out`,
    );
    expect(error.issues[1]).toMatch(/^UPSTREAMS\[0\]/);
    // Within the bound, entries with several problems each: the first 100, then a count.
    const many = Array.from({ length: MAX_UPSTREAMS }, (_, i) => ({
      id: `u${i}`,
      url: 'nope',
      timeout: 1,
      enabled: 'x',
    }));
    const again = await (await admin('PUT', '/upstreams', many)).json<{ error: { issues: string[] } }>();
    expect(again.error.issues).toHaveLength(101);
    expect(again.error.issues.at(-1)).toBe(`… and ${3 * MAX_UPSTREAMS - 100} more problems`);
  });
  it('a prompt too large to store as one row is refused with its size, not a 500', async () => {
    const image = { type: 'image', mimeType: 'image/png', data: 'A'.repeat(2_000_000) };
    const res = await admin('PUT', '/prompts/huge_image', { messages: [{ role: 'user', content: image }] });
    expect(res.status).toBe(422);
    const body = (await res.json()) as any;
    expect(body.error.code).toBe('invalid_prompts');
    expect(body.error.issues[0].message).toMatch(/is \d+ bytes as JSON; a prompt is at most 1900000 bytes/);
    expect((await admin('GET', '/prompts/huge_image')).status).toBe(404);
  });
  it('a write that would grow the catalog past one KV value is refused whole (413); one that shrinks it is not', async () => {
    expect((await admin('PUT', '/prompts/size_probe', text('size_probe', 'x'))).status).toBe(200);
    const generation = await readGeneration(env.PROMPTS);
    // As if the catalog were already just under the limit (its last snapshot's size is what the writer knows).
    const meta = (bytes: number) =>
      runInDurableObject(writerObject(env), (_o, ctx) => {
        ctx.storage.sql.exec('INSERT OR REPLACE INTO meta VALUES (?, ?)', 'bytes', String(bytes));
      });
    await meta(MAX_CATALOG_BYTES - 10);
    try {
      const grow = await admin('PUT', '/prompts/size_probe_2', text('size_probe_2', 'y'.repeat(100)));
      expect(grow.status).toBe(413);
      expect(((await grow.json()) as any).error.code).toBe('catalog_too_large');
      expect(await readGeneration(env.PROMPTS)).toBe(generation);
      expect((await admin('GET', '/prompts/size_probe_2')).status).toBe(404);
      // A dry run of the same write answers what the write would: 413, not a diff that cannot be published.
      const dry = await admin('POST', '/publish?dry_run=1', { prompts: [text('size_probe_2', 'y'.repeat(100))] });
      expect(dry.status).toBe(413);
      expect(((await dry.json()) as any).error.code).toBe('catalog_too_large');
      // Removing a prompt (or shrinking one) is always allowed: it is how such a catalog is mended.
      expect((await admin('DELETE', '/prompts/size_probe')).status).toBe(200);
    } finally {
      await meta(0);
    }
  });
});
