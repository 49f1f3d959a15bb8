/**
 * The CatalogWriter's write lock (src/catalog/write-lock.ts) holds only the other writes: while a
 * write is stopped inside its announcement (the change feed held still), an API-key request whose
 * key this isolate has not memoised, a direct key lookup and the admin reads all answer, a write
 * queued behind it waits and then runs after it, in order, an upload being published can be
 * neither added to nor deleted, and a write that fails is answered 503 (safe to repeat) without
 * stopping the one behind it.
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { keyDigest } from '../../src/catalog/keys-table.js';
import { catalogWriter } from '../../src/catalog/stubs.js';
import { app } from '../../src/routes/app.js';
import { feedStub, flushFeed, waitFor } from '../helpers/feed.js';
import { hold } from '../helpers/hold.js';
import { modernPost } from '../helpers/protocol.js';
import { adminFetch, MCP_URL } from '../helpers/worker.js';

const writer = () => catalogWriter(env);
const text = (name: string, t: string) => ({ name, messages: [{ role: 'user', content: { type: 'text', text: t } }] });

/** Waits for `p`, failing after `ms`: with a lock that holds every call, the call under test never answers. */
function within<T>(p: Promise<T>, what: string, ms = 3_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const late = new Promise<never>((_r, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms while a write was held`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const inKv = async (name: string) =>
  !!(await env.PROMPTS.get<{ prompts: { name: string }[] }>('catalog/head', 'json'))?.prompts.some(
    (p) => p.name === name,
  );

/**
 * Runs `check` while `write` (which writes prompt `name`) is stopped inside its announcement: its
 * history and KV written, the change feed held still. Then lets it finish (with `reset`, restarts
 * the feed under it, so the write fails) and resolves its result.
 */
async function whileAnnouncing<W, C>(
  name: string,
  write: () => Promise<W>,
  check: () => Promise<C>,
  reset?: string,
): Promise<{ written: W; checked: C }> {
  await flushFeed();
  const feed = hold(feedStub(), reset);
  const written = write();
  // A failure of the write itself is reported where it is awaited, below.
  written.catch(() => undefined);
  let checked: C;
  try {
    await waitFor(() => inKv(name), `${name} recorded and in KV`);
    checked = await check();
  } finally {
    await feed.release();
  }
  return { written: await written, checked };
}

/** An MCP request under AUTH=apikey with `key`, answered by the app as in production. */
async function listWithKey(key: string): Promise<Response> {
  const { init } = modernPost('prompts/list');
  const ctx = createExecutionContext();
  const e = { ...env, AUTH: 'apikey' } as Env;
  const req = new Request(MCP_URL, {
    ...init,
    headers: { ...(init.headers as object), authorization: `Bearer ${key}` },
  });
  const res = await app.fetch(req, e, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

async function mintKey(name: string): Promise<{ key: string; id: string }> {
  const res = await adminFetch('POST', '/keys', { name });
  expect(res.status).toBe(201);
  return res.json<{ key: string; id: string }>();
}

describe('a write held in its announcement', () => {
  it('holds neither API-key lookups nor reads; the write queued behind it runs after it, and both are recorded', async () => {
    const viaMcp = await mintKey('lock-mcp');
    const direct = await mintKey('lock-direct');
    // One stub: calls on it arrive in the order they are made, so the second write is queued before the reads.
    const stub = catalogWriter(env);
    let second: Promise<unknown> | undefined;
    const { written, checked } = await whileAnnouncing(
      'lock_first',
      () => writer().put(text('lock_first', 'one')),
      async () => {
        second = stub.put(text('lock_second', 'two'));
        second.catch(() => undefined);
        const res = await within(listWithKey(viaMcp.key), 'an MCP request with an API key not memoised');
        expect(res.status, await res.clone().text()).toBe(200);
        const record = await within(stub.keyByDigest(await keyDigest(direct.key)), 'keyByDigest');
        expect(record?.id).toBe(direct.id);
        // The held write's history is readable; the queued one has not begun.
        return {
          first: (await within(stub.get('lock_first'), 'get')).versions.length,
          second: (await within(stub.get('lock_second'), 'get')).versions.length,
        };
      },
    );
    expect(checked).toEqual({ first: 1, second: 0 });
    const a = written as { ok: true; generation: number };
    const b = (await second) as { ok: true; generation: number };
    expect(a.ok && b.ok).toBe(true);
    expect(b.generation).toBeGreaterThan(a.generation);
    for (const name of ['lock_first', 'lock_second']) {
      expect(
        (await writer().get(name)).versions.map((v) => v.version),
        name,
      ).toEqual([1]);
      expect(await inKv(name), `${name} served`).toBe(true);
    }
    expect(await flushFeed(), 'both announced, the second last').toBe(b.generation);
  });

  it('an upload being published takes no part and no delete (404); its publish then lands whole', async () => {
    const opened = await adminFetch('POST', '/uploads');
    const id = (await opened.json<{ upload: { id: string } }>()).upload.id;
    expect((await adminFetch('POST', `/uploads/${id}/prompts`, { prompts: [text('lock_staged', 'a')] })).status).toBe(
      200,
    );
    const { written, checked } = await whileAnnouncing(
      'lock_staged',
      () => adminFetch('POST', `/uploads/${id}/publish`),
      async () => ({
        part: (
          await within(adminFetch('POST', `/uploads/${id}/prompts`, { prompts: [text('lock_late', 'b')] }), 'a part')
        ).status,
        drop: (await within(adminFetch('DELETE', `/uploads/${id}`), 'a delete')).status,
      }),
    );
    expect(checked).toEqual({ part: 404, drop: 404 });
    expect(written.status).toBe(200);
    expect((await writer().get('lock_staged')).versions).toHaveLength(1);
    expect((await writer().get('lock_late')).versions).toHaveLength(0);
    // Used up by its publish, as the refused delete said.
    expect((await adminFetch('DELETE', `/uploads/${id}`)).status).toBe(404);
    await flushFeed();
  });

  it('a write that fails is answered 503, safe to repeat; the write queued behind it runs and announces both', async () => {
    const stub = catalogWriter(env);
    let second: Promise<unknown> | undefined;
    const { written, checked } = await whileAnnouncing(
      'lock_failed',
      () => adminFetch('PUT', '/prompts/lock_failed', text('lock_failed', 'one')),
      async () => {
        second = stub.put(text('lock_after', 'two'));
        second.catch(() => undefined);
        return (await within(stub.get('lock_after'), 'get')).versions.length;
      },
      'feed reset under the announcement',
    );
    expect(checked, 'queued behind the held write').toBe(0);
    expect({ status: written.status, retryAfter: written.headers.get('retry-after') }).toEqual({
      status: 503,
      retryAfter: '1',
    });
    const after = (await second) as { ok: true; generation: number };
    expect(after.ok).toBe(true);
    for (const name of ['lock_failed', 'lock_after'])
      expect(
        (await writer().get(name)).versions.map((v) => v.version),
        name,
      ).toEqual([1]);
    // The failed write's announcement went out with the one behind it.
    expect(await flushFeed()).toBe(after.generation);
    // Its repeat, as the 503 invites, finds it recorded: no second version.
    expect((await adminFetch('PUT', '/prompts/lock_failed', text('lock_failed', 'one'))).status).toBe(200);
    expect((await writer().get('lock_failed')).versions).toHaveLength(1);
  });
});
