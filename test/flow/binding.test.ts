/**
 * Sessions and streams bound to the principal (docs/access-control.md, "Sessions and
 * streams"), driven through rpc/legacy and rpc/modern with request scopes made by hand: a
 * session id presented by another principal is an unknown session (404 -32001) on POST, GET and
 * DELETE, decided without asking the session object; a stream ends at the keepalive after its
 * credential stops being valid (recheck false, or expired).
 */
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/lib/scope.js';
import { legacyDelete, legacyPost } from '../../src/rpc/legacy.js';
import { legacyGet } from '../../src/rpc/legacy-stream.js';
import { modernPost } from '../../src/rpc/modern.js';
import { checkSession, knownSession } from '../../src/session/sessions.js';
import { mintSessionId, readSessionId } from '../../src/session/token.js';
import { principal, scope } from '../helpers/principals.js';
import { readEvents } from '../helpers/sse.js';

const SECRET = 'test-signing-secret';
const LEGACY = '2025-11-25';
const alice = principal('oauth:idp#alice', ['eng']);
const bob = principal('oauth:idp#bob', ['eng']);

/** A thrown HttpError, or a response, as {status, code}. */
async function outcome(f: () => Response | Promise<Response>): Promise<{ status: number; code?: number }> {
  try {
    const r = await f();
    const text = await r.text();
    return {
      status: r.status,
      ...(text.startsWith('{') && { code: (JSON.parse(text) as { error?: { code: number } }).error?.code }),
    };
  } catch (e) {
    const err = e as { status?: number; code?: number; message?: string };
    if (err.status === undefined) throw e;
    return { status: err.status, code: err.code! };
  }
}

async function open(p: Principal | undefined): Promise<string> {
  const res = await legacyPost(scope(p), {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'binding-test', version: '1' } },
  });
  expect(res.status).toBe(200);
  return res.headers.get('mcp-session-id')!;
}

const inSession = (id: string, extra: Record<string, string> = {}) => ({
  headers: { 'mcp-session-id': id, 'mcp-protocol-version': LEGACY, ...extra },
});
const list = (p: Principal | undefined, id: string) =>
  outcome(() => legacyPost(scope(p, inSession(id)), { jsonrpc: '2.0', id: 2, method: 'prompts/list' }));

/** env with the session namespace's lookups counted: how many times a check reached for an object. */
function countingSessions(): { env: Env; lookups: () => number } {
  let n = 0;
  const sessions = new Proxy(env.SESSIONS, {
    get(target, prop) {
      const v = Reflect.get(target, prop);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => (n++, v.apply(target, args));
    },
  });
  return { env: { ...env, SESSIONS: sessions }, lookups: () => n };
}

describe('session ids bound to the principal', () => {
  it('verify only for the principal they were minted for', async () => {
    const id = await mintSessionId('k', LEGACY, alice.id);
    expect(await readSessionId('k', id, alice.id)).toBe(LEGACY);
    expect(await readSessionId('k', id, bob.id)).toBeNull();
    expect(await readSessionId('k', id)).toBeNull();
    // From another isolate's point of view too (nothing memoised for this secret and id).
    const fresh = await mintSessionId('k2', LEGACY, alice.id);
    expect(await readSessionId('k2', fresh, bob.id)).toBeNull();
    expect(await readSessionId('k2', fresh, alice.id)).toBe(LEGACY);
    const anonymous = await mintSessionId('k', LEGACY);
    expect(await readSessionId('k', anonymous, 'anonymous')).toBe(LEGACY);
    expect(await readSessionId('k', anonymous, alice.id)).toBeNull();
  });

  it('another principal’s session is not found on POST, GET and DELETE, and stays alive for its owner', async () => {
    const id = await open(alice);
    expect(await list(alice, id)).toEqual({ status: 200 });
    const forged = `${id.slice(0, -3)}AAA`;
    const unknown = await list(bob, forged);
    expect(unknown).toEqual({ status: 404, code: -32001 });
    expect(await list(bob, id)).toEqual(unknown);
    expect(await list(undefined, id)).toEqual(unknown);
    const accept = { accept: 'text/event-stream' };
    expect(await outcome(() => legacyGet(scope(bob, inSession(id, accept)), undefined))).toEqual(unknown);
    expect(await outcome(() => legacyDelete(scope(bob, inSession(id))))).toEqual(unknown);
    // Bob's attempts ended nothing.
    expect(await list(alice, id)).toEqual({ status: 200 });
    expect(await outcome(() => legacyDelete(scope(alice, inSession(id))))).toEqual({ status: 200 });
    expect(await list(alice, id)).toEqual(unknown);
  });

  it('the anonymous principal (no access control) keeps its sessions as before', async () => {
    const id = await open(undefined);
    expect(await list(undefined, id)).toEqual({ status: 200 });
    expect(await list(principal('anonymous', [], { method: 'none' }), id)).toEqual({ status: 200 });
    expect(await list(alice, id)).toEqual({ status: 404, code: -32001 });
  });

  it('the liveness memo is per principal, and a mismatch never reaches the session object', async () => {
    const id = await open(alice);
    const counted = countingSessions();
    expect(await checkSession(counted.env, SECRET, id, 60_000, alice.id)).toBe(LEGACY);
    expect(knownSession(SECRET, id, alice.id)).toBe(LEGACY);
    expect(knownSession(SECRET, id, bob.id)).toBeUndefined();
    const before = counted.lookups();
    expect(before).toBeGreaterThan(0);
    expect(await checkSession(counted.env, SECRET, id, 60_000, bob.id)).toBeNull();
    expect(await checkSession(counted.env, SECRET, id, 0, bob.id)).toBeNull();
    expect(counted.lookups()).toBe(before);
  });
});

describe('streams end with their credential', () => {
  it('a GET stream ends at the keepalive after recheck turns false', async () => {
    let valid = true;
    const live = principal(alice.id, alice.groups as string[], { recheck: () => valid });
    const id = await open(live);
    const res = await legacyGet(scope(live, inSession(id, { accept: 'text/event-stream' })), undefined);
    const stream = readEvents(res);
    // Keepalives go on while the credential is good.
    for (let seen = 0; seen < 2;) if ((await stream.next()).comment === 'keepalive') seen++;
    valid = false;
    expect(await stream.ended()).toBe(true);
    expect(await list(live, id)).toEqual({ status: 200 });
  });

  it('a listen stream ends with its result once the credential has expired, or an async recheck says no', async () => {
    const listen = (p: Principal) =>
      modernPost(
        scope(p, { headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' } }),
        {
          jsonrpc: '2.0',
          id: 'L1',
          method: 'subscriptions/listen',
          params: {
            notifications: { promptsListChanged: true },
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        },
      );
    const expired = principal('key:k1', [], { method: 'apikey', expiresAt: Date.now() - 1 });
    let revoked = false;
    const revocable = principal('key:k2', [], { method: 'apikey', recheck: () => Promise.resolve(!revoked) });
    for (const [p, revoke] of [
      [expired, () => {}],
      [revocable, () => void (revoked = true)],
    ] as const) {
      const stream = readEvents(await listen(p));
      expect((await stream.nextMessage()).message.method).toBe('notifications/subscriptions/acknowledged');
      while ((await stream.next()).comment !== 'keepalive');
      revoke();
      // Closed as a drop, with no listen result: a client that listens again must show a valid credential.
      expect(await stream.rest()).toEqual([]);
      expect(await stream.ended()).toBe(true);
    }
  });

  it('a principal without a credential (none, or unset) is never ended by it', async () => {
    const none = principal('anonymous', [], { method: 'none', recheck: () => false, expiresAt: 0 });
    const id = await open(none);
    const res = await legacyGet(scope(none, inSession(id, { accept: 'text/event-stream' })), undefined);
    const stream = readEvents(res);
    for (let seen = 0; seen < 3;) if ((await stream.next()).comment === 'keepalive') seen++;
    await stream.close();
  });
});
