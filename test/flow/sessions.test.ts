/**
 * Session state lives in the session's Durable Object, made on first need
 * (not at initialize): checked here directly in storage, including idle
 * expiry by alarm, and sessions that never had an object.
 */
import { createExecutionContext, env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { SessionState } from '../../src/session/session-state.js';
import { checkSession, endSession, sessionLiveness } from '../../src/session/sessions.js';
import { shardCount, shardIndex, shardStub } from '../../src/session/fanout.js';
import { waitFor } from '../helpers/feed.js';
import { hold } from '../helpers/hold.js';
import { mintSessionId, readSessionToken } from '../../src/session/token.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { expectError, MCP_URL, openSession, post, publish, request } from '../helpers/worker.js';
import { initialize, postInit } from '../helpers/protocol.js';
import worker from '../../src/index.js';

const SECRET = 'test-signing-secret';
const stubOf = (id: string) => env.SESSIONS.get(env.SESSIONS.idFromName(id));

/** The session idle past its TTL, on a fresh instance (as after eviction), its alarm not run yet (alarms can be late). */
const idleOnFreshInstance = (stub: ReturnType<typeof stubOf>) =>
  runInDurableObject(stub, async (o, ctx) => {
    const st = (await ctx.storage.get<SessionState>('state'))!;
    await ctx.storage.put('state', { ...st, lastSeenAt: Date.now() - 61_000 });
    (o as unknown as { state: unknown }).state = undefined;
  });

beforeAll(async () => {
  await publish(FIXTURE_PROMPTS);
});

describe('session Durable Object', () => {
  it('initialize stores nothing: the first request that needs state makes the object from the id', async () => {
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: { roots: { listChanged: true } },
        clientInfo: { name: 'lazy', version: '7' },
      },
    });
    const id = init.headers.get('mcp-session-id')!;
    expect(init.status).toBe(200);
    // The id carries the revision and the client's label, signed; no object has been written.
    expect(await readSessionToken(SECRET, id)).toMatchObject({
      version: '2025-06-18',
      client: { name: 'lazy', version: '7' },
    });
    expect(await runInDurableObject(stubOf(id), (_o, ctx) => ctx.storage.list())).toEqual(new Map());
    // SESSION_RECHECK_MS is 0 here, so this request asks the object, which comes to be.
    expect((await post(request('ping'), { session: id, version: '2025-06-18' })).status).toBe(200);
    const state = await runInDurableObject(stubOf(id), (_o, ctx) => ctx.storage.get<SessionState>('state'));
    expect(state).toMatchObject({ id, version: '2025-06-18', ttlMs: 60_000 });
    expect(state!.lastSeenAt).toBeGreaterThanOrEqual(state!.createdAt);
    expect(await runInDurableObject(stubOf(id), (_o, ctx) => ctx.storage.getAlarm())).toBeGreaterThan(Date.now());
  });
  it('a session never touched after initialize expires on its own: its id outlives the TTL, no object needed', async () => {
    // Minted a TTL and a second ago, and never used since: nothing was ever stored for it.
    const old = await mintSessionId(SECRET, '2025-11-25', undefined, { ttlMs: 60_000, now: Date.now() - 61_000 });
    await expectError(await post(request('ping'), { session: old }), 404, -32001);
    // Asking did not bring it back to life, and left nothing behind.
    expect(await runInDurableObject(stubOf(old), (_o, ctx) => ctx.storage.list())).toEqual(new Map());
    // The same id minted inside the TTL is alive.
    const fresh = await mintSessionId(SECRET, '2025-11-25', undefined, { ttlMs: 60_000, now: Date.now() - 59_000 });
    expect((await post(request('ping'), { session: fresh })).status).toBe(200);
  });
  it('a session deleted before its object ever existed stays deleted, then leaves nothing once its id expires', async () => {
    const s = { id: await initializeOnly() };
    expect(await runInDurableObject(stubOf(s.id), (_o, ctx) => ctx.storage.get('state'))).toBeUndefined();
    expect((await fetchDelete(s.id)).status).toBe(200);
    // Every later use is a 404 (this isolate knows at once; another one asks the object, as here).
    await expectError(await post(request('ping'), { session: s.id }), 404, -32001);
    const token = (await readSessionToken(SECRET, s.id))!;
    expect(await stubOf(s.id).touch({ id: s.id, version: token.version, unusedUntil: token.unusedUntil })).toBe(false);
    expect((await fetchDelete(s.id)).status).toBe(404);
    // The tombstone lasts until the id would have expired anyway, then its alarm clears it.
    const tomb = await runInDurableObject(stubOf(s.id), async (_o, ctx) => [
      await ctx.storage.get<number>('ended'),
      await ctx.storage.getAlarm(),
    ]);
    // Until the id would have expired anyway, or the idle TTL from the DELETE that made its object, the later.
    expect(tomb[0]).toBeGreaterThanOrEqual(token.unusedUntil);
    expect(tomb[0]).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(tomb[1]).toBe(tomb[0]);
    await runInDurableObject(stubOf(s.id), async (o, ctx) => {
      await ctx.storage.put('ended', Date.now() - 1);
      (o as unknown as { state: unknown }).state = undefined;
    });
    expect(await runDurableObjectAlarm(stubOf(s.id))).toBe(true);
    expect(await runInDurableObject(stubOf(s.id), (_o, ctx) => ctx.storage.list())).toEqual(new Map());
  });
  it('keeps the log level in storage', async () => {
    const s = await openSession();
    await s.call('logging/setLevel', { level: 'error' });
    const state = await runInDurableObject(stubOf(s.id), (_o, ctx) => ctx.storage.get<SessionState>('state'));
    expect(state!.logLevel).toBe('error');
  });
  it("a stream's liveness check asks nothing before the id could expire, and never records activity", async () => {
    // A session nobody used: alive, without a call, until its id's unusedUntil; then its object says no.
    const soon = await mintSessionId(SECRET, '2025-11-25', undefined, { ttlMs: 60_000, now: Date.now() - 59_950 });
    const token = (await readSessionToken(SECRET, soon))!;
    const check = sessionLiveness(env, { id: soon, version: token.version, unusedUntil: token.unusedUntil }, 60_000);
    expect(check()).toBe(true);
    await waitFor(() => Date.now() >= token.unusedUntil, 'the id expired');
    expect(await check()).toBe(false);
    expect(await runInDurableObject(stubOf(soon), (_o, ctx) => ctx.storage.list())).toEqual(new Map());
    // A session whose object is alive: the check moves to its idle deadline and leaves lastSeenAt alone.
    const s = await openSession();
    const init = await initOf(s.id);
    // The instance's own view: activity is kept in memory at once and written only now and then.
    const held = () =>
      runInDurableObject(stubOf(s.id), (o) => ({ ...(o as unknown as { state: SessionState }).state }));
    const seen = await held();
    expect(await stubOf(s.id).alive(init)).toEqual({ until: seen.lastSeenAt + seen.ttlMs });
    expect((await held()).lastSeenAt).toBe(seen.lastSeenAt);
    // Ended: no.
    await endSession(env, init);
    expect(await stubOf(s.id).alive(init)).toBe(false);
  });
  it("a stream's liveness check that gets no answer is no verdict: the stream goes on, and the next check asks again", async () => {
    const s = await openSession();
    const init = await initOf(s.id);
    // Past its id's unusedUntil, so every check asks the object until one gets an answer.
    const check = sessionLiveness(env, { ...init, unusedUntil: 0 }, 60_000);
    // The session's object is reset under the check: no answer, so not a no. Logged, without the id.
    const warn = vi.spyOn(console, 'warn');
    try {
      expect(await resetUnder(s.id, check)).toBe(true);
      const lines = warn.mock.calls.map((c) => String(c[0]));
      expect(lines.some((l) => l.includes('liveness check had no answer'))).toBe(true);
      for (const l of lines) expect(l).not.toContain(s.id);
    } finally {
      warn.mockRestore();
    }
    // Held without an answer past the wait: the same.
    const slow = sessionLiveness(env, { ...init, unusedUntil: 0 }, 60_000, 50);
    expect(await askHeld(s.id, slow, { ms: 2_000 })).toEqual({ answer: true, whileHeld: true });
    // Nothing was taken from the failure: the next check asks the object, and its no (the session
    // ended behind this isolate's back, as on another one) ends the stream.
    await stubOf(s.id).end(init);
    expect(await check()).toBe(false);
  });
  it("a stream's liveness check that gets no answer for the session's idle TTL is a no", async () => {
    const s = await openSession();
    const init = await initOf(s.id);
    const check = sessionLiveness(env, { ...init, unusedUntil: 0 }, 200);
    expect(await resetUnder(s.id, check)).toBe(true);
    await new Promise((r) => setTimeout(r, 250));
    // Failing since longer than the TTL: the session cannot be vouched for any more.
    expect(await resetUnder(s.id, check)).toBe(false);
    // Not ended, only unconfirmed: a check that gets an answer again says so.
    expect(await check()).toBe(true);
  });
  it('an idle session expires by alarm, and then answers 404', async () => {
    const s = await openSession();
    const stub = stubOf(s.id);
    // Not yet idle: the alarm re-arms instead of ending the session.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await runInDurableObject(stub, (_o, ctx) => ctx.storage.get('state'))).toMatchObject({
      id: s.id,
      version: s.version,
    });
    // Idle for longer than the TTL. The re-armed alarm stays a TTL away in real time, so only the
    // test runs it: an alarm due in a few ms could fire on its own first, however fast the machine.
    const armed = await runInDurableObject(stub, async (_o, ctx) => {
      const st = (await ctx.storage.get<SessionState>('state'))!;
      await ctx.storage.put('state', { ...st, lastSeenAt: Date.now() - 61_000 });
      return ctx.storage.getAlarm();
    });
    expect(armed).toBeGreaterThan(Date.now());
    // The instance cached its state; a real expiry happens on a fresh instance, as after eviction.
    await runInDurableObject(stub, (o) => {
      (o as unknown as { state: unknown }).state = undefined;
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await runInDurableObject(stub, (_o, ctx) => ctx.storage.get('state'))).toBeUndefined();
    await expectError(await post(request('ping'), { session: s.id }), 404, -32001);
  });
  it('the liveness memo trusts a session for recheckMs, and forgets at once what this isolate ended', async () => {
    const a = await openSession();
    expect(await checkSession(env, SECRET, a.id, 60_000)).toBe('2025-11-25');
    // Ended behind this isolate's back (another isolate's DELETE): the memo still vouches, by design, for up to recheckMs.
    await stubOf(a.id).end(await initOf(a.id));
    expect(await checkSession(env, SECRET, a.id, 60_000)).toBe('2025-11-25');
    // Without a memo the object is asked and says no.
    const b = await openSession();
    await stubOf(b.id).end(await initOf(b.id));
    expect(await checkSession(env, SECRET, b.id, 60_000)).toBeNull();
    // Ended through this isolate: forgotten immediately, memo or not.
    const c = await openSession();
    expect(await checkSession(env, SECRET, c.id, 60_000)).toBe('2025-11-25');
    await endSession(env, await initOf(c.id));
    expect(await checkSession(env, SECRET, c.id, 60_000)).toBeNull();
  });
  it('logging/setLevel on a session ended behind the memo is 404 -32001, and the session stays ended here', async () => {
    // A deployment's memo (the tests' default rechecks on every request), so this isolate vouches.
    const memo = { ...env, SESSION_RECHECK_MS: '60000' };
    const send = (body: unknown, session?: string) =>
      worker.fetch(new Request(MCP_URL, postInit(body, { session })), memo, createExecutionContext());
    const init = await send(initialize());
    const id = init.headers.get('mcp-session-id')!;
    expect((await send(request('ping'), id)).status).toBe(200);
    // Another isolate's DELETE: the object is ended; this isolate's memo still trusts the session.
    await stubOf(id).end(await initOf(id));
    const setLevel = { jsonrpc: '2.0', id: 'lvl', method: 'logging/setLevel', params: { level: 'debug' } };
    const res = await send(setLevel, id);
    expect((await res.clone().json<{ id?: unknown }>()).id, 'the request id is echoed').toBe('lvl');
    await expectError(res, 404, -32001);
    await expectError(await send(request('ping'), id), 404, -32001);
    // Idle past its TTL while the memo vouched: setting a level is a use, and finds it expired.
    const idle = (await send(initialize())).headers.get('mcp-session-id')!;
    // Its first level is the state that makes its object.
    expect((await send(setLevel, idle)).status).toBe(200);
    await idleOnFreshInstance(stubOf(idle));
    await expectError(await send(setLevel, idle), 404, -32001);
    expect(await runInDurableObject(stubOf(idle), (_o, ctx) => ctx.storage.get('state'))).toBeUndefined();
  });
  it("a 2025-03-26 batch on a session ended behind the memo is one 404 -32001 echoing no item's id", async () => {
    const memo = { ...env, SESSION_RECHECK_MS: '60000' };
    const headers = (id: string) => ({ session: id, version: '2025-03-26' });
    const send = (body: unknown, session?: string) =>
      worker.fetch(
        new Request(MCP_URL, postInit(body, session ? headers(session) : {})),
        memo,
        createExecutionContext(),
      );
    const id = (await send(initialize('2025-03-26'))).headers.get('mcp-session-id')!;
    expect((await send(request('ping'), id)).status).toBe(200);
    await stubOf(id).end(await initOf(id));
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'logging/setLevel', params: { level: 'debug' } },
    ];
    const res = await send(batch, id);
    const body = await res.clone().json<Record<string, unknown>>();
    expect(Array.isArray(body)).toBe(false);
    expect(body, 'a batch-wide error names no call').not.toHaveProperty('id', 2);
    expect(body.id ?? null).toBeNull();
    await expectError(res, 404, -32001);
  });
  it('a DELETE racing a touch from another isolate stays a DELETE: the session is not made anew while its stream ends', async () => {
    const s = await openSession();
    const init = await initOf(s.id);
    const stub = stubOf(s.id);
    // end() calls the session's shard; while it waits, the object takes other calls (another
    // isolate whose memo ran out). Whatever that touch answered, the session is over afterwards.
    const [ended] = await Promise.all([stub.end(init), stub.touch(init), stub.touch(init)]);
    expect(ended).toBe(true);
    expect(await stub.touch(init)).toBe(false);
    expect(await stub.alive(init)).toBe(false);
    const left = await runInDurableObject(stub, (_o, ctx) => ctx.storage.list());
    expect([...left.keys()]).toEqual(['ended']);
  });
  // A touch must not revive it, and a DELETE must be the 404 every other request gets, not a 200.
  for (const call of ['touch', 'end'] as const)
    it(`a ${call === 'end' ? 'DELETE' : 'touch'} after the idle TTL, before the alarm ran, expires the session`, async () => {
      const s = await openSession();
      const init = await initOf(s.id);
      const stub = stubOf(s.id);
      await idleOnFreshInstance(stub);
      expect(await stub[call](init)).toBe(false);
      expect(await stub.alive(init)).toBe(false);
      expect(await runInDurableObject(stub, (_o, ctx) => ctx.storage.get('state'))).toBeUndefined();
    });
  it('a session found expired is a 404 even when its shard cannot be told', async () => {
    const s = await openSession();
    const stub = stubOf(s.id);
    await idleOnFreshInstance(stub);
    // The session's shard is reset under the call that would end its stream.
    const shard = hold(shardStub(env, shardIndex(s.id, shardCount(env))), 'shard reset');
    const answer = post(request('ping'), { session: s.id });
    await new Promise((r) => setTimeout(r, 50));
    await shard.release();
    await expectError(await answer, 404, -32001);
  });
  it('idle time counts from the latest touch, though activity is written at most every tenth of the TTL', async () => {
    const s = await openSession();
    const init = await initOf(s.id);
    const stub = stubOf(s.id);
    expect(await stub.touch(init)).toBe(true);
    const first = (await stub.alive(init)) as { until: number };
    await new Promise((r) => setTimeout(r, 25));
    expect(await stub.touch(init)).toBe(true);
    const second = (await stub.alive(init)) as { until: number };
    expect(second.until).toBeGreaterThan(first.until);
  });
  it('DELETE removes all state from storage', async () => {
    const s = await openSession();
    await post(request('ping'), { session: s.id });
    const res = await fetchDelete(s.id);
    expect(res.status).toBe(200);
    // Only the tombstone is left: when its id would have expired anyway.
    const left = await runInDurableObject(stubOf(s.id), (_o, ctx) => ctx.storage.list());
    expect([...left.keys()]).toEqual(['ended']);
    await expectError(await post(request('ping'), { session: s.id }), 404, -32001);
  });
});

describe('ending a session at its shard', () => {
  const shardOf = (id: string) => shardStub(env, shardIndex(id, shardCount(env)));
  const refusedUntil = (id: string) =>
    runInDurableObject(
      shardOf(id),
      (_o, ctx) =>
        ctx.storage.sql.exec<{ until: number }>('SELECT until FROM ended WHERE session = ?', id).toArray()[0]?.until,
    );
  /** Makes the session's object, as if it had been in use since its id's own TTL ran out. */
  async function usedPastItsId(): Promise<{ id: string; init: Awaited<ReturnType<typeof initOf>> }> {
    const s = await openSession();
    const init = await initOf(s.id);
    await runInDurableObject(stubOf(s.id), async (o, ctx) => {
      const state = (await ctx.storage.get<SessionState>('state'))!;
      const used = { ...state, unusedUntil: Date.now() - 1_000, lastSeenAt: Date.now() };
      await ctx.storage.put('state', used);
      (o as unknown as { state: SessionState }).state = used;
    });
    return { id: s.id, init };
  }

  it("a session in use past its id's TTL is refused at its shard, once ended, until its idle TTL would have run out", async () => {
    const { id, init } = await usedPastItsId();
    const before = Date.now();
    expect(await endSession(env, init)).toBe(true);
    // Any isolate's memo or stream may still vouch for it until its last activity's TTL: the shard refuses it till then.
    expect(await refusedUntil(id)).toBeGreaterThanOrEqual(before + 60_000 - 1_000);
    expect(await stubOf(id).alive(init)).toBe(false);
  });

  it("a session's end reads the tombstones that expired, not every one its shard still keeps", async () => {
    // A shard no session of these tests hashes to (REGISTRY_SHARDS is 4), holding what a busy one
    // would: thousands of sessions ended within the last TTL, a few of them past their time.
    const shard = shardStub(env, 17);
    const statements = await runInDurableObject(shard, async (o, ctx) => {
      const sql = ctx.storage.sql;
      const now = Date.now();
      for (let i = 0; i < 3_000; i++) sql.exec('INSERT INTO ended VALUES (?, ?)', `kept-${i}`, now + 60_000);
      for (let i = 0; i < 5; i++) sql.exec('INSERT INTO ended VALUES (?, ?)', `expired-${i}`, now - 1_000);
      // Every statement the end runs, with the rows it read (the real cursors, only recorded).
      const exec = sql.exec.bind(sql);
      const seen: { query: string; cursor: SqlStorageCursor<Record<string, SqlStorageValue>> }[] = [];
      sql.exec = ((query: string, ...bindings: unknown[]) => {
        const cursor = exec(query, ...bindings);
        seen.push({ query, cursor });
        return cursor;
      }) as typeof sql.exec;
      try {
        await o.endSession('ending-now', now + 60_000);
      } finally {
        sql.exec = exec;
      }
      return seen.map(({ query, cursor }) => ({ query, rowsRead: cursor.rowsRead }));
    });
    expect(statements.length).toBeGreaterThan(0);
    // The expired five and the index's edge, not the 3,000 still refused.
    for (const s of statements) expect(s.rowsRead, s.query).toBeLessThan(20);
    const left = await runInDurableObject(shard, (_o, ctx) =>
      ctx.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM ended').one(),
    );
    expect(left.n).toBe(3_001);
  });

  it('a DELETE whose shard could not be told fails, and the object tells the shard again by alarm', async () => {
    const { id, init } = await usedPastItsId();
    // The shard is unreachable for this one call (as when it was reset mid-call).
    type WithEnv = { env: Env };
    let real: Env | undefined;
    await runInDurableObject(stubOf(id), (o) => {
      real = (o as unknown as WithEnv).env;
      const unreachable = { getByName: () => ({ endSession: () => Promise.reject(new Error('shard reset')) }) };
      (o as unknown as WithEnv).env = { ...real, REGISTRY: unreachable } as unknown as Env;
    });
    const failed = await stubOf(id)
      .end(init)
      .then(
        () => undefined,
        (e: unknown) => String(e),
      );
    expect(failed).toContain('shard reset');
    await runInDurableObject(stubOf(id), (o) => {
      (o as unknown as WithEnv).env = real!;
    });
    expect(await refusedUntil(id)).toBeUndefined();
    const retryAt = await runInDurableObject(stubOf(id), (_o, ctx) => ctx.storage.getAlarm());
    expect(retryAt).toBeLessThan(Date.now() + 10_000);
    // The ended session is not made anew meanwhile, and its alarm tells the shard.
    expect(await stubOf(id).touch(init)).toBe(false);
    expect(await runDurableObjectAlarm(stubOf(id))).toBe(true);
    expect(await refusedUntil(id)).toBeGreaterThan(Date.now() + 50_000);
    // Told: the tombstone's own alarm is back at its end.
    expect(await runInDurableObject(stubOf(id), (_o, ctx) => ctx.storage.getAlarm())).toBeGreaterThan(
      Date.now() + 50_000,
    );
  });
});

/**
 * What `check` answers while the session's object is held still (hold.ts, here waiting until the
 * hold is in place, so the check's call meets it) for up to `ms`, then restarted under the call
 * when `reset` says so; and whether it answered while the object was still held.
 */
async function askHeld(
  id: string,
  check: () => boolean | Promise<boolean>,
  { reset, ms = 100 }: { reset?: string; ms?: number } = {},
): Promise<{ answer: boolean; whileHeld: boolean }> {
  // A flag, not a promise: a promise the object's call resolves would not wake this test's wait.
  let placed = false;
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const held = runInDurableObject(stubOf(id), (_o, ctx) =>
    ctx.blockConcurrencyWhile(async () => {
      placed = true;
      await gate;
      if (reset !== undefined) ctx.abort(reset);
    }),
  ).catch(() => {});
  await waitFor(() => placed, 'the object held');
  const answer = Promise.resolve(check());
  const whileHeld = await Promise.race([
    answer.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((r) => setTimeout(() => r(false), ms)),
  ]);
  open();
  await held;
  return { answer: await answer, whileHeld };
}
const resetUnder = async (id: string, check: () => boolean | Promise<boolean>) =>
  (await askHeld(id, check, { reset: 'session object reset' })).answer;

/** An `initialize` and nothing else (openSession also sends notifications/initialized, which asks the object here). */
async function initializeOnly(): Promise<string> {
  const res = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
  });
  expect(res.status).toBe(200);
  return res.headers.get('mcp-session-id')!;
}

async function initOf(id: string) {
  const t = (await readSessionToken(SECRET, id))!;
  return { id, version: t.version, unusedUntil: t.unusedUntil };
}

function fetchDelete(id: string) {
  return import('cloudflare:test').then(({ SELF }) =>
    SELF.fetch('https://gateway.test/mcp', { method: 'DELETE', headers: { 'mcp-session-id': id } }),
  );
}
