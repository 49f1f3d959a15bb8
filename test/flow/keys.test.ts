/**
 * API keys: minted through /admin/keys (shown once, stored only as a
 * SHA-256), listed without secrets, revoked at once in the writer and within
 * KEY_RECHECK_MS in an isolate; apiKeyPrincipal's answers; admin access for
 * admin principals (403 for others) and `by` in the version history.
 */
import { createExecutionContext, env, runInDurableObject, SELF, waitOnExecutionContext } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiKeyPrincipal } from '../../src/auth/api-key.js';
import { CatalogWriter } from '../../src/catalog/catalog-writer.js';
import { keyDigest, MAX_INACTIVE_LISTED, MAX_KEYS } from '../../src/catalog/keys-table.js';
import { catalogWriter, writerObject } from '../../src/catalog/stubs.js';
import { configOf } from '../../src/lib/config.js';
import { AuthConfigError } from '../../src/auth/config-checks.js';
import { authConfigOf } from '../../src/auth/config.js';
import type { RequestScope } from '../../src/lib/scope.js';
import { app } from '../../src/routes/app.js';
import { jwks, newSigner, sign, type Signer } from '../helpers/auth-tokens.js';
import { ADMIN_BASE, ADMIN_TOKEN, adminFetch } from '../helpers/worker.js';

const BASE = ADMIN_BASE;
const TOKEN = ADMIN_TOKEN;
const admin = adminFetch;

async function createKey(body: Record<string, unknown>): Promise<{ key: string; id: string; [k: string]: any }> {
  const res = await admin('POST', '/keys', body);
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json<{ key: string; id: string }>();
}

/** A RequestScope for calling apiKeyPrincipal directly, over a per-test env. */
function scopeFor(e: Env): RequestScope {
  return { env: e, cfg: configOf(e), principal: undefined } as unknown as RequestScope;
}
const noMemo = { ...env, KEY_RECHECK_MS: '0' } as unknown as Env;
const longMemo = { ...env, KEY_RECHECK_MS: '300000' } as unknown as Env;

const text = (name: string, t: string) => ({ name, messages: [{ role: 'user', content: { type: 'text', text: t } }] });

/** A key row as the writer stores it, written straight into its table: many at once, at chosen times. */
function rawKey(q: SqlStorage, id: string, at: { createdAt: number; revokedAt?: number }): void {
  q.exec(
    'INSERT INTO keys VALUES (?,?,?,?,?,?,?,?,?,?)',
    id,
    `h-${id}`,
    'f',
    '[]',
    null,
    0,
    at.createdAt,
    't',
    null,
    at.revokedAt ?? null,
  );
}

describe('/admin/keys', () => {
  it('mints a pg_ key shown once; lists it without the secret or its hash; the DO stores only the digest', async () => {
    const made = await createKey({ name: 'ci-bot', groups: ['team-b', 'team-a', 'team-a'], expiresInDays: 30 });
    expect(made.key).toMatch(/^pg_[A-Za-z0-9_-]{43}$/);
    expect(made.id).toMatch(/^[0-9a-f]{16}$/);
    expect(made).toMatchObject({ name: 'ci-bot', groups: ['team-a', 'team-b'], admin: false, createdBy: 'admin' });
    expect(made.revokedAt).toBeNull();
    expect(Date.parse(made.expiresAt) - Date.parse(made.createdAt)).toBe(30 * 86_400_000);
    expect(made.scopes).toBeUndefined();
    const digest = await keyDigest(made.key);

    const listed = await (await admin('GET', '/keys')).text();
    const entry = (JSON.parse(listed) as { keys: any[] }).keys.find((k) => k.id === made.id);
    expect(entry).toEqual(Object.fromEntries(Object.entries(made).filter(([k]) => k !== 'key')));
    expect(listed).not.toContain(made.key);
    expect(listed).not.toContain(made.key.slice(3));
    expect(listed).not.toContain(digest);

    const rows = await runInDurableObject(writerObject(env), (_o, ctx) =>
      ctx.storage.sql.exec('SELECT * FROM keys WHERE id = ?', made.id).toArray(),
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.hash).toBe(digest);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(made.key);
    expect(stored).not.toContain(made.key.slice(3));
  });

  it('bad input is a 400 naming the field, and creates nothing', async () => {
    const count = async () => (await (await admin('GET', '/keys')).json<{ keys: unknown[] }>()).keys.length;
    const before = await count();
    const cases: [unknown, string][] = [
      [{}, 'name'],
      [{ name: 'has space' }, 'name'],
      [{ name: '-leading' }, 'name'],
      [{ name: 'x'.repeat(65) }, 'name'],
      [{ name: 'ok', groups: 'team-a' }, 'groups'],
      [{ name: 'ok', groups: ['team a'] }, 'groups[0]'],
      [{ name: 'ok', groups: [7] }, 'groups[0]'],
      [{ name: 'ok', scopes: [] }, 'scopes'],
      [{ name: 'ok', scopes: ['bad"scope'] }, 'scopes[0]'],
      [{ name: 'ok', admin: 'yes' }, 'admin'],
      [{ name: 'ok', expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt'],
      [{ name: 'ok', expiresAt: 'tomorrow' }, 'expiresAt'],
      [{ name: 'ok', expiresInDays: 0 }, 'expiresInDays'],
      [{ name: 'ok', expiresInDays: -1 }, 'expiresInDays'],
      [{ name: 'ok', expiresInDays: 1, expiresAt: '2999-01-01T00:00:00Z' }, 'expiresAt'],
      [{ name: 'ok', key: 'pg_mine' }, 'key'],
      [[], ''],
    ];
    for (const [body, path] of cases) {
      const res = await admin('POST', '/keys', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const { error } = (await res.json()) as any;
      expect(error.code).toBe('invalid_key');
      expect(
        error.issues.map((i: any) => i.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    const notJson = await SELF.fetch(`${BASE}/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: '{name:',
    });
    expect(notJson.status).toBe(400);
    expect((await admin('POST', '/keys', { name: 'ok' }, 'wrong')).status).toBe(401);
    expect(await count()).toBe(before);
  });

  it('revoke: immediate in the object, idempotent, 404 for an unknown id; the row stays listed', async () => {
    const made = await createKey({ name: 'to-revoke' });
    const first = await admin('DELETE', `/keys/${made.id}`);
    expect(first.status).toBe(200);
    const revoked = (await first.json()) as any;
    expect(revoked.revokedAt).toEqual(expect.any(String));
    const again = (await (await admin('DELETE', `/keys/${made.id}`)).json()) as any;
    expect(again.revokedAt).toBe(revoked.revokedAt);
    expect(await catalogWriter(env).keyByDigest(await keyDigest(made.key))).toMatchObject({
      id: made.id,
      revokedAt: Date.parse(revoked.revokedAt),
    });
    for (const id of ['0000000000000000', 'nope', made.key, 'a%20b']) {
      const res = await admin('DELETE', `/keys/${id}`);
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain(made.key);
    }
    const { keys } = (await (await admin('GET', '/keys')).json()) as any;
    expect(keys.find((k: any) => k.id === made.id).revokedAt).toBe(revoked.revokedAt);
  });

  it('at most MAX_KEYS active keys: one more is a 400 too_many_keys; revoked and expired ones do not count', async () => {
    const sql = (fn: (sql: SqlStorage) => unknown) =>
      runInDurableObject(writerObject(env), (_o, ctx) => fn(ctx.storage.sql));
    await sql((q) => {
      const live = q
        .exec<{ n: number }>(
          'SELECT COUNT(*) AS n FROM keys WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)',
          Date.now(),
        )
        .one().n;
      for (let i = live; i < MAX_KEYS; i++) rawKey(q, `ffff${i.toString(16).padStart(12, '0')}`, { createdAt: 1 });
    });
    try {
      const res = await admin('POST', '/keys', { name: 'one-too-many' });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error.code).toBe('too_many_keys');
      const fillers = (await sql((q) =>
        q.exec<{ id: string }>("SELECT id FROM keys WHERE id LIKE 'ffff%' LIMIT 2").toArray(),
      )) as { id: string }[];
      expect((await admin('DELETE', `/keys/${fillers[0]!.id}`)).status).toBe(200);
      await createKey({ name: 'fits-after-revoke' });
      expect((await admin('POST', '/keys', { name: 'one-too-many' })).status).toBe(400);
      await sql((q) => q.exec('UPDATE keys SET expires_at = 2 WHERE id = ?', fillers[1]!.id));
      await createKey({ name: 'fits-after-expiry' });
    } finally {
      await sql((q) => q.exec("DELETE FROM keys WHERE id LIKE 'ffff%'"));
    }
  });
});

describe('GET /admin/keys over years of minting and revoking', () => {
  it('lists every active key and the newest MAX_INACTIVE_LISTED inactive ones, and counts the rest', async () => {
    const sql = (fn: (sql: SqlStorage) => unknown) =>
      runInDurableObject(writerObject(env), (_o, ctx) => fn(ctx.storage.sql));
    const active = await createKey({ name: 'still-used' });
    // Keys earlier tests revoked: newer than the ones below, so listed first.
    const revokedBefore = (await sql(
      (q) => q.exec<{ n: number }>('SELECT COUNT(*) AS n FROM keys WHERE revoked_at IS NOT NULL').one().n,
    )) as number;
    const extra = 25;
    // Revoked long ago, oldest first: created_at i + 1 ms after the epoch.
    await sql((q) => {
      for (let i = 0; i < MAX_INACTIVE_LISTED + extra; i++)
        rawKey(q, `eeee${i.toString(16).padStart(12, '0')}`, { createdAt: i + 1, revokedAt: i + 2 });
    });
    try {
      const res = await admin('GET', '/keys');
      const body = await res.json<{ keys: { id: string; revokedAt: string | null }[]; omitted?: number }>();
      expect(body.omitted).toBe(revokedBefore + extra);
      const old = body.keys.filter((k) => k.id.startsWith('eeee'));
      expect(old).toHaveLength(MAX_INACTIVE_LISTED - revokedBefore);
      // The newest of them, newest first; the oldest are the ones left out.
      const hex = (i: number) => `eeee${i.toString(16).padStart(12, '0')}`;
      expect(old[0]!.id).toBe(hex(MAX_INACTIVE_LISTED + extra - 1));
      expect(old.at(-1)!.id).toBe(hex(extra + revokedBefore));
      expect(body.keys.some((k) => k.id === active.id)).toBe(true);
    } finally {
      await sql((q) => q.exec("DELETE FROM keys WHERE id LIKE 'eeee%'"));
    }
    expect((await (await admin('GET', '/keys')).json<{ omitted?: number }>()).omitted).toBeUndefined();
  });
});

describe('apiKeyPrincipal', () => {
  it('KEY_RECHECK_MS: default 2000, bad values are a config error naming it', () => {
    const { KEY_RECHECK_MS: _unset, ...rest } = env as unknown as Record<string, unknown>;
    expect(authConfigOf(rest as unknown as Env).keyRecheckMs).toBe(2000);
    for (const bad of ['soon', '-1', '1.5', '300001'])
      expect(() => authConfigOf({ ...env, KEY_RECHECK_MS: bad } as unknown as Env), bad).toThrow(
        new AuthConfigError('KEY_RECHECK_MS', `must be an integer in [0, 300000], got ${bad}`),
      );
  });

  it('a valid key is its principal; unknown and malformed keys are undefined', async () => {
    const made = await createKey({ name: 'reader', groups: ['team-a'] });
    const p = await apiKeyPrincipal(scopeFor(noMemo), made.key);
    expect(p).toMatchObject({ id: `key:${made.id}`, method: 'apikey', name: 'reader', groups: ['team-a'] });
    expect(p!.admin).toBe(false);
    expect([...p!.scopes]).toEqual(['prompts:read']);
    expect(p!.expiresAt).toBeUndefined();
    expect(await p!.recheck()).toBe(true);
    const unknown = `pg_${'A'.repeat(43)}`;
    for (const k of [unknown, made.key.slice(0, -1), `${made.key}x`, made.key.slice(3), 'pg_', ''])
      expect(await apiKeyPrincipal(scopeFor(noMemo), k), k).toBeUndefined();
  });

  it('scopes and the admin flag: an admin key has the admin and read scopes', async () => {
    const made = await createKey({ name: 'ops', admin: true, scopes: ['prompts:write-ish'] });
    const p = (await apiKeyPrincipal(scopeFor(noMemo), made.key))!;
    expect(p.admin).toBe(true);
    expect([...p.scopes].sort()).toEqual(['prompts:admin', 'prompts:read', 'prompts:write-ish']);
  });

  it('revoked: trusted from the memo inside the window (no object call), undefined once it is asked again', async () => {
    const made = await createKey({ name: 'memo' });
    const p = (await apiKeyPrincipal(scopeFor(longMemo), made.key))!;
    expect(p.id).toBe(`key:${made.id}`);
    // Revoked in the object only (not through the route, which also clears this isolate's memo).
    await catalogWriter(env).revokeKey(made.id);
    // Within the window the answer is the memo's: had the object been asked, it would say revoked.
    expect((await apiKeyPrincipal(scopeFor(longMemo), made.key))?.id).toBe(`key:${made.id}`);
    expect(await apiKeyPrincipal(scopeFor(noMemo), made.key)).toBeUndefined();
    expect(await p.recheck()).toBe(false);
    // A negative answer is remembered too, and for a revoked key it stays negative.
    expect(await apiKeyPrincipal(scopeFor(longMemo), made.key)).toBeUndefined();
  });

  it('revoking through the admin API stops this isolate at once, whatever the window', async () => {
    const made = await createKey({ name: 'route-revoke' });
    expect(await apiKeyPrincipal(scopeFor(longMemo), made.key)).toBeDefined();
    expect((await admin('DELETE', `/keys/${made.id}`)).status).toBe(200);
    expect(await apiKeyPrincipal(scopeFor(longMemo), made.key)).toBeUndefined();
  });

  it('an expired key is undefined; its expiry is the principal expiresAt', async () => {
    const made = await createKey({ name: 'expiring', expiresAt: new Date(Date.now() + 86_400_000).toISOString() });
    const p = (await apiKeyPrincipal(scopeFor(noMemo), made.key))!;
    expect(p.expiresAt).toBe(Date.parse(made.expiresAt));
    // Time does not pass in a test: the stored expiry moves into the past instead.
    await runInDurableObject(writerObject(env), (_o, ctx) => {
      ctx.storage.sql.exec('UPDATE keys SET expires_at = ? WHERE id = ?', Date.now() - 1, made.id);
    });
    expect(await apiKeyPrincipal(scopeFor(noMemo), made.key)).toBeUndefined();
    expect(await p.recheck()).toBe(false);
  });
});

/**
 * The worker's app under real access control: API keys (`AUTH=apikey`) and JWTs from a local
 * issuer key (`AUTH=oauth`), each request authenticated by routes/auth.ts as in production.
 */
const ISSUER = 'https://idp.test';
let signer: Signer;
const keyEnv = () => ({ ...env, AUTH: 'apikey' }) as Env;
const oauthEnv = (extra: Record<string, string> = {}) =>
  ({ ...env, AUTH: 'oauth', OAUTH_ISSUERS: JSON.stringify([{ issuer: ISSUER, jwks: jwks(signer) }]), ...extra }) as Env;
const jwtFor = (scope: string) => sign(signer, { iss: ISSUER, aud: 'https://gateway.test/mcp', sub: 'u1', scope });

async function via(
  e: Env,
  method: string,
  path: string,
  bearer: string,
  body?: unknown,
  { ip = '198.51.100.1' }: { ip?: string } = {},
) {
  const ctx = createExecutionContext();
  const headers: Record<string, string> = { authorization: `Bearer ${bearer}`, 'cf-connecting-ip': ip };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const init = { method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
  const res = await app.fetch(new Request(BASE + path, init), e, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe('admin authorization and who wrote what', () => {
  beforeAll(async () => {
    signer = await newSigner('keys-test');
  });

  it('the ADMIN_TOKEN writes as "admin"; the history says so', async () => {
    expect((await admin('PUT', '/prompts/by_token', text('by_token', 'one'))).status).toBe(200);
    const { history } = (await (await admin('GET', '/prompts/by_token/history')).json()) as any;
    expect(history.map((h: any) => h.by)).toEqual(['admin']);
    const { versions } = (await (await admin('GET', '/prompts/by_token')).json()) as any;
    expect(versions[0].by).toBe('admin');
  });

  it('an admin key may use /admin and is recorded as key:<id>; a plain key gets 403 and writes nothing', async () => {
    const adminKey = await createKey({ name: 'publisher', admin: true });
    const plain = await createKey({ name: 'reader' });
    const e = keyEnv();
    expect((await via(e, 'PUT', '/prompts/by_key', adminKey.key, text('by_key', 'one'))).status).toBe(200);
    expect((await via(e, 'POST', '/publish', adminKey.key, { prompts: [text('by_key', 'two')] })).status).toBe(200);
    const deny = await via(e, 'PUT', '/prompts/by_key', plain.key, text('by_key', 'three'));
    expect(deny.status).toBe(403);
    expect(((await deny.json()) as any).error.code).toBe('forbidden');
    expect((await via(e, 'GET', '/keys', plain.key)).status).toBe(403);
    const minted = (await (await via(e, 'POST', '/keys', adminKey.key, { name: 'child' })).json()) as any;
    expect(minted.createdBy).toBe(`key:${adminKey.id}`);
    await admin('POST', '/prompts/by_key/rollback', { version: 1 });
    const { history } = (await (await admin('GET', '/prompts/by_key/history')).json()) as any;
    expect(history.map((v: any) => v.by)).toEqual([`key:${adminKey.id}`, `key:${adminKey.id}`, 'admin']);
  });

  it('a key that is an admin by its groups or scopes is listed as one, as it is treated', async () => {
    const e = { ...keyEnv(), ADMIN_GROUPS: 'ops' } as unknown as Env;
    const byGroup = (await (await via(e, 'POST', '/keys', TOKEN, { name: 'ops-bot', groups: ['ops'] })).json()) as any;
    const byScope = (await (
      await via(e, 'POST', '/keys', TOKEN, { name: 'scoped', scopes: ['prompts:admin'] })
    ).json()) as any;
    const plain = (await (await via(e, 'POST', '/keys', TOKEN, { name: 'plain-bot', groups: ['dev'] })).json()) as any;
    expect([byGroup.admin, byScope.admin, plain.admin]).toEqual([true, true, false]);
    // What it is shown as is what it may do.
    expect((await via(e, 'GET', '/keys', byGroup.key)).status).toBe(200);
    expect((await via(e, 'GET', '/keys', plain.key)).status).toBe(403);
    const listed = ((await (await via(e, 'GET', '/keys', TOKEN)).json()) as any).keys;
    const adminOf = (id: string) => listed.find((k: any) => k.id === id)?.admin;
    expect([adminOf(byGroup.id), adminOf(byScope.id), adminOf(plain.id)]).toEqual([true, true, false]);
    // Without ADMIN_GROUPS naming it, the group makes no admin, and the listing says so.
    const relisted = ((await (await via(keyEnv(), 'GET', '/keys', TOKEN)).json()) as any).keys;
    expect(relisted.find((k: any) => k.id === byGroup.id)?.admin).toBe(false);
    const revoked = (await (await via(e, 'DELETE', `/keys/${byGroup.id}`, TOKEN)).json()) as any;
    expect(revoked.admin).toBe(true);
  });

  it('a reader token gets 403, the ADMIN_TOKEN still works, an admin token needs no ADMIN_TOKEN', async () => {
    const e = oauthEnv();
    const deny = await via(e, 'GET', '/keys', await jwtFor('prompts:read'));
    expect(deny.status).toBe(403);
    expect(((await deny.json()) as any).error.code).toBe('forbidden');
    expect((await via(e, 'PUT', '/prompts/by_oauth', TOKEN, text('by_oauth', 'token'))).status).toBe(200);
    const admin1 = await jwtFor('prompts:admin');
    expect((await via(e, 'PUT', '/prompts/by_oauth', admin1, text('by_oauth', 'o'))).status).toBe(200);
    const { history } = (await (await admin('GET', '/prompts/by_oauth/history')).json()) as any;
    expect(history.map((v: any) => v.by)).toEqual(['admin', `oauth:${ISSUER}#u1`]);
    // Without an ADMIN_TOKEN the admin API is still there for admin principals, and still absent for others.
    const tokenless = oauthEnv({ ADMIN_TOKEN: '' });
    expect((await via(tokenless, 'GET', '/keys', admin1)).status).toBe(200);
    expect((await via(tokenless, 'GET', '/keys', TOKEN)).status).toBe(404);
  });

  it("a known principal's own bearer is not a failed token guess: no lock-out, however often", async () => {
    const e = oauthEnv();
    const reader = await jwtFor('prompts:read');
    const ip = '198.51.100.77';
    for (let i = 0; i < 15; i++) expect((await via(e, 'GET', '/keys', reader, undefined, { ip })).status).toBe(403);
    expect((await via(e, 'GET', '/keys', TOKEN, undefined, { ip })).status).toBe(200);
    // Guesses that prove no one still count (limit 10 per minute in the test config), then lock the client out.
    const codes = [];
    for (let i = 0; i < 12; i++) codes.push((await via(e, 'GET', '/keys', `guess-${i}`, undefined, { ip })).status);
    expect(codes.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(codes.at(-1)).toBe(429);
  });

  it('AUTH=none proves nothing about /admin: the ADMIN_TOKEN is still required', async () => {
    expect((await via(env, 'GET', '/keys', 'wrong', undefined, { ip: '198.51.100.78' })).status).toBe(401);
    expect((await via(env, 'GET', '/keys', TOKEN)).status).toBe(200);
  });
});

describe('schema', () => {
  it('a writer whose versions table predates `by` gains the column; its old rows read null', async () => {
    await admin('PUT', '/prompts/old_row', text('old_row', 'before'));
    await runInDurableObject(writerObject(env), async (_o, ctx) => {
      ctx.storage.sql.exec('ALTER TABLE versions DROP COLUMN "by"');
      const writer = new CatalogWriter(ctx, env);
      const cols = ctx.storage.sql.exec<{ name: string }>("SELECT name FROM pragma_table_info('versions')").toArray();
      expect(cols.map((c) => c.name)).toContain('by');
      expect((await writer.history('old_row', { limit: 10 })).history.map((v) => v.by)).toEqual([null]);
      new CatalogWriter(ctx, env); // a second start changes nothing
    });
    await admin('PUT', '/prompts/old_row', text('old_row', 'after'));
    const { history } = (await (await admin('GET', '/prompts/old_row/history')).json()) as any;
    expect(history.map((v: any) => v.by)).toEqual([null, 'admin']);
  });

  it('a writer whose uploads table predates `by` gains the column, and a publish in parts works', async () => {
    await runInDurableObject(writerObject(env), async (_o, ctx) => {
      ctx.storage.sql.exec('ALTER TABLE uploads DROP COLUMN "by"');
      new CatalogWriter(ctx, env);
      const cols = ctx.storage.sql.exec<{ name: string }>("SELECT name FROM pragma_table_info('uploads')").toArray();
      expect(cols.map((c) => c.name)).toContain('by');
      new CatalogWriter(ctx, env); // a second start changes nothing
    });
    const res = await admin('POST', '/uploads');
    expect(res.status).toBe(201);
    const { upload } = (await res.json()) as any;
    const open = (await (await admin('GET', '/uploads')).json()) as any;
    expect(open.uploads.find((u: any) => u.id === upload.id)?.by).toBe('admin');
  });
});
