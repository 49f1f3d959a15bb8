/**
 * Publishing a set larger than one admin request (/admin/uploads): parts checked as they come,
 * one change when published, dry runs that leave the upload open, and the limits that keep
 * uploads from piling up in the writer's storage.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it, vi } from 'vitest';
import { readGeneration } from '../../src/catalog/store.js';
import { writerObject } from '../../src/catalog/stubs.js';
import {
  MAX_OPEN_PER_OPENER,
  MAX_OPEN_UPLOADS,
  MAX_UPLOAD_PROMPTS,
  UPLOAD_TTL_MS,
} from '../../src/catalog/upload-limits.js';
import { MAX_CATALOG_BYTES } from '../../src/catalog/versioned-writes.js';
import { MAX_PUBLISH_PROMPTS } from '../../src/routes/admin-json.js';
import { adminFetch as admin, adminFetchIn } from '../helpers/worker.js';

const text = (name: string, t = `text of ${name}`) => ({
  name,
  messages: [{ role: 'user', content: { type: 'text', text: t } }],
});
const many = (prefix: string, n: number, from = 0) => Array.from({ length: n }, (_, i) => text(`${prefix}${from + i}`));

async function open(): Promise<string> {
  const res = await admin('POST', '/uploads');
  expect(res.status).toBe(201);
  return ((await res.json()) as any).upload.id;
}

const sql = (query: string, ...args: SqlStorageValue[]) =>
  runInDurableObject(writerObject(env), (_o, ctx) => {
    ctx.storage.sql.exec(query, ...args);
  });

/** Every published prompt's name, page after page. */
async function publishedNames(): Promise<string[]> {
  const names: string[] = [];
  let after: string | undefined;
  do {
    const page = (await (await admin('GET', `/prompts${after ? `?after=${after}` : ''}`)).json()) as any;
    names.push(...page.prompts.map((p: any) => p.name));
    after = page.next;
  } while (after);
  return names;
}

/** Forgets every upload, so each test starts with none open. */
const clear = () => sql('DELETE FROM uploads');

describe('a set larger than one request', () => {
  it('one request refuses it and says how to publish it', async () => {
    const res = await admin('POST', '/publish', { prompts: many('big', MAX_PUBLISH_PROMPTS + 1) });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.message).toContain('/admin/uploads');
  });

  it('published in parts, it is one change: dry run first, prune included, and the upload is used up', async () => {
    await clear();
    expect((await admin('POST', '/publish', { prompts: [text('stale_one'), text('part0')] })).status).toBe(200);
    const before = await readGeneration(env.PROMPTS);
    const id = await open();
    const first = await admin('POST', `/uploads/${id}/prompts`, { prompts: many('part', MAX_PUBLISH_PROMPTS) });
    expect(first.status).toBe(200);
    expect(((await first.json()) as any).upload).toMatchObject({ id, prompts: MAX_PUBLISH_PROMPTS });
    const second = await admin('POST', `/uploads/${id}/prompts`, { prompts: many('part', 300, MAX_PUBLISH_PROMPTS) });
    expect(((await second.json()) as any).upload.prompts).toBe(MAX_PUBLISH_PROMPTS + 300);
    // Nothing is published until the upload is.
    expect(await readGeneration(env.PROMPTS)).toBe(before);

    const dry = await admin('POST', `/uploads/${id}/publish?dry_run=1&prune=1`);
    expect(dry.status).toBe(200);
    const plan = (await dry.json()) as any;
    expect(plan.diff.added).toHaveLength(MAX_PUBLISH_PROMPTS + 299);
    expect(plan.diff.unchanged).toEqual(['part0']);
    expect(plan.diff.removed).toEqual(['stale_one']);
    expect(await readGeneration(env.PROMPTS)).toBe(before);

    const spy = vi.spyOn(console, 'log');
    const done = await admin('POST', `/uploads/${id}/publish?prune=1`);
    const line = spy.mock.calls.map((c) => String(c[0])).find((l) => l.includes('"catalog written"'));
    spy.mockRestore();
    expect(done.status).toBe(200);
    // Its log line names the first 50 added and counts the rest, however large the publish.
    expect(JSON.parse(line!)).toMatchObject({ removed: ['stale_one'], unchanged: 1 });
    expect(JSON.parse(line!).added).toHaveLength(51);
    expect(JSON.parse(line!).added[50]).toBe(`… ${MAX_PUBLISH_PROMPTS + 299 - 50} more`);
    const result = (await done.json()) as any;
    expect(result.generation).toBeGreaterThan(before);
    expect(await readGeneration(env.PROMPTS)).toBe(result.generation);
    const listed = await publishedNames();
    expect(listed).toHaveLength(MAX_PUBLISH_PROMPTS + 300);
    expect(listed).toContain(`part${MAX_PUBLISH_PROMPTS + 299}`);
    expect(listed).not.toContain('stale_one');

    // A publish uses the upload up: neither a second publish nor a late part finds it.
    expect((await admin('POST', `/uploads/${id}/publish`)).status).toBe(404);
    expect((await admin('POST', `/uploads/${id}/prompts`, { prompts: [text('late')] })).status).toBe(404);
  });

  it('a bad part is refused whole, its issues numbered in the whole upload; a name from an earlier part is one', async () => {
    await clear();
    const id = await open();
    expect((await admin('POST', `/uploads/${id}/prompts`, { prompts: many('dup', 3) })).status).toBe(200);
    const bad = await admin('POST', `/uploads/${id}/prompts`, {
      prompts: [text('fresh'), { name: 'bad one', messages: [] }, text('dup1')],
    });
    expect(bad.status).toBe(422);
    const issues = ((await bad.json()) as any).error.issues;
    expect(issues).toEqual(expect.arrayContaining([{ path: 'prompts[4]: name', message: expect.any(String) }]));
    const dup = await admin('POST', `/uploads/${id}/prompts`, { prompts: [text('fresh'), text('dup1')] });
    expect(dup.status).toBe(422);
    expect(((await dup.json()) as any).error.issues).toEqual([
      { path: 'prompts[4]: name', message: expect.stringContaining('an earlier part of this upload') },
    ]);
    // Neither refused part left anything behind.
    const dry = (await (await admin('POST', `/uploads/${id}/publish?dry_run=1`)).json()) as any;
    expect([...dry.diff.added, ...dry.diff.changed, ...dry.diff.unchanged].sort()).toEqual(['dup0', 'dup1', 'dup2']);
  });

  it('an unknown, abandoned or expired upload is 404', async () => {
    await clear();
    expect((await admin('POST', '/uploads/no-such-upload/prompts', { prompts: [text('x')] })).status).toBe(404);
    const abandoned = await open();
    expect((await admin('DELETE', `/uploads/${abandoned}`)).status).toBe(204);
    expect((await admin('DELETE', `/uploads/${abandoned}`)).status).toBe(404);
    expect((await admin('POST', `/uploads/${abandoned}/publish`)).status).toBe(404);
    const old = await open();
    const stale = await open();
    for (const id of [old, stale])
      await sql('UPDATE uploads SET created_at = ? WHERE id = ?', Date.now() - UPLOAD_TTL_MS - 1, id);
    // Deleting an expired one says it was not open, as every other request about it does.
    expect((await admin('DELETE', `/uploads/${stale}`)).status).toBe(404);
    const late = await admin('POST', `/uploads/${old}/prompts`, { prompts: [text('x')] });
    expect(late.status).toBe(404);
    expect(((await late.json()) as any).error.message).toContain('expires an hour after');
  });

  it(`at most ${MAX_OPEN_PER_OPENER} open per principal and ${MAX_OPEN_UPLOADS} in all (409); expired ones do not count, and are dropped`, async () => {
    await clear();
    const e = { ...env, AUTH: 'apikey' } as Env;
    const asKey = async (name: string) => {
      const made = await admin('POST', '/keys', { name, admin: true });
      expect(made.status).toBe(201);
      const key = ((await made.json()) as any).key as string;
      return (method: string, path: string) => adminFetchIn(e, method, path, key);
    };
    const openAs = async (f: (method: string, path: string) => Promise<Response>) => {
      const res = await f('POST', '/uploads');
      expect(res.status).toBe(201);
      return ((await res.json()) as any).upload.id as string;
    };
    const ids: string[] = [];
    for (let i = 0; i < MAX_OPEN_PER_OPENER; i++) ids.push(await open());
    // One principal's crashed runs fill its own share only.
    const mine = await admin('POST', '/uploads');
    expect(mine.status).toBe(409);
    expect(((await mine.json()) as any).error).toMatchObject({
      code: 'too_many_uploads',
      message: expect.stringContaining(`at most ${MAX_OPEN_PER_OPENER} per principal`),
    });
    const second = await asKey('uploads-second');
    for (let i = MAX_OPEN_PER_OPENER; i < MAX_OPEN_UPLOADS; i++) ids.push(await openAs(second));
    const third = await asKey('uploads-third');
    const over = await third('POST', '/uploads');
    expect(over.status).toBe(409);
    const refusal = ((await over.json()) as any).error;
    expect(refusal.code).toBe('too_many_uploads');
    expect(refusal.message).toContain('GET /admin/uploads');
    // Which are open, oldest first, and who opened them: how a stale one is found and deleted.
    const listed = ((await (await admin('GET', '/uploads')).json()) as any).uploads;
    expect(listed.map((u: any) => u.id)).toEqual(ids);
    expect(listed[0]).toMatchObject({ prompts: 0, bytes: 0, by: 'admin' });
    expect(listed[MAX_OPEN_PER_OPENER].by).not.toBe('admin');
    await admin('POST', `/uploads/${ids[0]}/prompts`, { prompts: [text('left_behind')] });
    await sql('UPDATE uploads SET created_at = ? WHERE id = ?', Date.now() - UPLOAD_TTL_MS - 1, ids[0]!);
    await open();
    const rows = await runInDurableObject(writerObject(env), (_o, ctx) =>
      ctx.storage.sql.exec('SELECT count(*) AS n FROM upload_prompts WHERE id = ?', ids[0]!).one(),
    );
    expect(rows.n).toBe(0);
  });

  it('an upload may not outgrow the catalog limit (413), and keeps what it had', async () => {
    await clear();
    const id = await open();
    expect((await admin('POST', `/uploads/${id}/prompts`, { prompts: [text('kept')] })).status).toBe(200);
    await sql('UPDATE uploads SET bytes = ? WHERE id = ?', MAX_CATALOG_BYTES - 10, id);
    const res = await admin('POST', `/uploads/${id}/prompts`, { prompts: [text('one_too_many')] });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.code).toBe('catalog_too_large');
    const dry = (await (await admin('POST', `/uploads/${id}/publish?dry_run=1`)).json()) as any;
    expect([...dry.diff.added, ...dry.diff.unchanged]).toEqual(['kept']);
  });

  it(`at most ${MAX_UPLOAD_PROMPTS} prompts in one upload (413 too_many)`, async () => {
    await clear();
    const id = await open();
    await sql('UPDATE uploads SET prompts = ? WHERE id = ?', MAX_UPLOAD_PROMPTS - 1, id);
    const res = await admin('POST', `/uploads/${id}/prompts`, { prompts: many('cap', 2) });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.code).toBe('too_many');
    expect((await admin('POST', `/uploads/${id}/prompts`, { prompts: many('cap', 1) })).status).toBe(200);
  });

  it('a publish that is refused uses its upload up all the same; its dry run does not', async () => {
    await clear();
    const id = await open();
    expect(
      (await admin('POST', `/uploads/${id}/prompts`, { prompts: [text('too_big_now', 'y'.repeat(100))] })).status,
    ).toBe(200);
    const meta = (bytes: number) => sql('INSERT OR REPLACE INTO meta VALUES (?, ?)', 'bytes', String(bytes));
    await meta(MAX_CATALOG_BYTES - 10);
    try {
      expect((await admin('POST', `/uploads/${id}/publish?dry_run=1`)).status).toBe(413);
      expect((await admin('POST', `/uploads/${id}/publish`)).status).toBe(413);
      expect((await admin('POST', `/uploads/${id}/publish?dry_run=1`)).status).toBe(404);
    } finally {
      await meta(0);
    }
  });

  it('only the principal that opened an upload adds to it or publishes it; any admin may delete it', async () => {
    await clear();
    const made = await admin('POST', '/keys', { name: 'other-admin', admin: true });
    expect(made.status).toBe(201);
    const key = ((await made.json()) as any).key as string;
    const e = { ...env, AUTH: 'apikey' } as Env;
    const other = (method: string, path: string, body?: unknown) => adminFetchIn(e, method, path, key, body);
    const id = await open();
    expect((await admin('POST', `/uploads/${id}/prompts`, { prompts: [text('mine')] })).status).toBe(200);
    const theirs = await other('POST', `/uploads/${id}/prompts`, { prompts: [text('slipped_in')] });
    expect(theirs.status).toBe(403);
    expect(((await theirs.json()) as any).error).toMatchObject({
      code: 'not_yours',
      message: expect.stringContaining('was opened by admin'),
    });
    for (const q of ['?dry_run=1', '']) {
      const early = await other('POST', `/uploads/${id}/publish${q}`);
      expect(early.status, q).toBe(403);
      expect(((await early.json()) as any).error.code, q).toBe('not_yours');
    }
    // Still open, holding the opener's part only; the opener publishes it, as the author of its versions.
    const published = await admin('POST', `/uploads/${id}/publish`);
    expect(published.status).toBe(200);
    expect(((await published.json()) as any).diff.added).toEqual(['mine']);
    const history = (await (await admin('GET', '/prompts/mine/history')).json()) as any;
    expect(history.history[0].by).toBe('admin');
    // A stale upload holds a slot: any admin may delete it.
    const stale = await open();
    expect((await other('DELETE', `/uploads/${stale}`)).status).toBe(204);
    expect((await admin('POST', `/uploads/${stale}/publish`)).status).toBe(404);
  });

  it('uploads are admin-only', async () => {
    expect((await admin('POST', '/uploads', undefined, null)).status).toBe(401);
  });
});
