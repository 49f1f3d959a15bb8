/**
 * Session state lives in the session's Durable Object: checked here
 * directly in storage, including idle expiry by alarm.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SessionState } from '../../src/session/session-object.js';
import { checkSession, endSession } from '../../src/session/sessions.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { expectError, openSession, post, publish, request } from '../helpers/worker.js';

const SECRET = 'test-signing-secret';
const stubOf = (id: string) => env.SESSIONS.get(env.SESSIONS.idFromName(id));

beforeAll(async () => {
  await publish(FIXTURE_PROMPTS);
});

describe('session Durable Object', () => {
  it('stores the negotiated version, client info and capabilities', async () => {
    const s = await openSession('2025-06-18', { roots: { listChanged: true } });
    const state = await runInDurableObject(stubOf(s.id), (_o, ctx) => ctx.storage.get<SessionState>('state'));
    expect(state).toMatchObject({
      version: '2025-06-18',
      clientInfo: { name: 'test', version: '1' },
      capabilities: { roots: { listChanged: true } },
    });
    expect(state!.ttlMs).toBe(60_000);
    expect(state!.lastSeenAt).toBeGreaterThanOrEqual(state!.createdAt);
  });
  it('keeps the log level in storage', async () => {
    const s = await openSession();
    await s.call('logging/setLevel', { level: 'error' });
    const state = await runInDurableObject(stubOf(s.id), (_o, ctx) => ctx.storage.get<SessionState>('state'));
    expect(state!.logLevel).toBe('error');
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
    await stubOf(a.id).end();
    expect(await checkSession(env, SECRET, a.id, 60_000)).toBe('2025-11-25');
    // Without a memo the object is asked and says no.
    const b = await openSession();
    await stubOf(b.id).end();
    expect(await checkSession(env, SECRET, b.id, 60_000)).toBeNull();
    // Ended through this isolate: forgotten immediately, memo or not.
    const c = await openSession();
    expect(await checkSession(env, SECRET, c.id, 60_000)).toBe('2025-11-25');
    await endSession(env, c.id);
    expect(await checkSession(env, SECRET, c.id, 60_000)).toBeNull();
  });
  it('DELETE removes all state from storage', async () => {
    const s = await openSession();
    await post(request('ping'), { session: s.id });
    const res = await fetchDelete(s.id);
    expect(res.status).toBe(200);
    expect(await runInDurableObject(stubOf(s.id), (_o, ctx) => ctx.storage.list())).toEqual(new Map());
    await expectError(await post(request('ping'), { session: s.id }), 404, -32001);
  });
});

function fetchDelete(id: string) {
  return import('cloudflare:test').then(({ SELF }) =>
    SELF.fetch('https://gateway.test/mcp', { method: 'DELETE', headers: { 'mcp-session-id': id } }),
  );
}
