/**
 * routes/scope.ts: one RequestScope per request, shared by everything that
 * asks for it; headers read from the runtime only when asked for, the two
 * MCP headers at most once; the signing-secret check only where it is asked;
 * the client's signal from the request as it arrived.
 */
import { createExecutionContext, env } from 'cloudflare:test';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from '../../src/env.js';
import { MissingSecretError } from '../../src/lib/config-vars.js';
import type { RequestScope } from '../../src/lib/scope.js';
import { headerOf, methodOf, scopeOf, signingScopeOf } from '../../src/routes/scope.js';

/** Runs `body` as a route handler on a request whose header reads are counted by name. */
async function inRoute(
  headers: Record<string, string>,
  body: (scope: () => RequestScope, reads: Map<string, number>) => void,
  e: Env = env,
): Promise<void> {
  const reads = new Map<string, number>();
  const app = new Hono<AppEnv>();
  app.onError((err) => {
    throw err;
  });
  app.get('/', (c) => {
    const get = c.req.raw.headers.get.bind(c.req.raw.headers);
    c.req.raw.headers.get = (name: string) => (reads.set(name, (reads.get(name) ?? 0) + 1), get(name));
    body(() => scopeOf(c), reads);
    return c.text('ok');
  });
  const res = await app.fetch(new Request('https://gateway.test/', { headers }), e, createExecutionContext());
  expect(res.status).toBe(200);
}

describe('scopeOf', () => {
  it("carries the arriving request's signal, also after a guard re-wraps the request", async () => {
    const client = new AbortController();
    let seen: AbortSignal | undefined;
    const app = new Hono<AppEnv>();
    app.use('*', async (c, next) => {
      scopeOf(c);
      // As guards.ts does with a chunked body: a new Request in place of the one that arrived.
      c.req.raw = new Request(c.req.raw.url, { method: 'POST', body: 'x', signal: new AbortController().signal });
      await next();
    });
    app.post('/', (c) => ((seen = scopeOf(c).signal), c.text('ok')));
    const req = new Request('https://gateway.test/', { method: 'POST', body: '{}', signal: client.signal });
    expect((await app.fetch(req, env, createExecutionContext())).status).toBe(200);
    expect(seen?.aborted).toBe(false);
    client.abort();
    expect(seen?.aborted).toBe(true);
  });

  it('is one object per request', async () => {
    await inRoute({}, (scope) => expect(scope()).toBe(scope()));
  });

  it('reads nothing until asked, and Mcp-Session-Id / MCP-Protocol-Version once each', async () => {
    await inRoute(
      { 'mcp-session-id': 's1', 'mcp-protocol-version': '2025-11-25', authorization: 'Bearer t' },
      (scope, reads) => {
        const s = scope();
        expect(s.cfg.pageSize).toBe(3);
        expect([...reads.keys()]).toEqual([]);
        for (let i = 0; i < 3; i++) {
          expect(s.sessionId).toBe('s1');
          expect(s.protocolVersion).toBe('2025-11-25');
        }
        expect(s.header('authorization')).toBe('Bearer t');
        expect(Object.fromEntries(reads)).toEqual({ 'mcp-session-id': 1, 'mcp-protocol-version': 1, authorization: 1 });
      },
    );
  });

  it('an absent MCP header is read once too', async () => {
    await inRoute({}, (scope, reads) => {
      const s = scope();
      expect([s.sessionId, s.sessionId, s.protocolVersion, s.protocolVersion]).toEqual([
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
      expect(Object.fromEntries(reads)).toEqual({ 'mcp-session-id': 1, 'mcp-protocol-version': 1 });
    });
  });

  it('checks the signing secret only when it is read, or up front in signingScopeOf', async () => {
    const unsigned = { ...env, SIGNING_SECRET: '' } as Env;
    await inRoute(
      {},
      (scope) => {
        const s = scope();
        expect(s.cfg.pageSize).toBe(3);
        expect(() => s.secret).toThrow(MissingSecretError);
      },
      unsigned,
    );
    await inRoute({}, (scope) => expect(scope().secret).toBe('test-signing-secret'));
  });
});

describe('runtime reads', () => {
  // Each read of a Request's url, method or headers crosses into the runtime (a string or wrapper
  // made per read): the scope makes each at most once per request, however often it is asked.
  it('reads the URL, the method and the headers object once each, and each header from that object', async () => {
    const app = new Hono<AppEnv>();
    const reads = new Map<string, number>();
    app.post('/', (c) => {
      const raw = c.req.raw;
      for (const name of ['url', 'method', 'headers'] as const) {
        const original = raw[name];
        Object.defineProperty(raw, name, {
          get: () => (reads.set(name, (reads.get(name) ?? 0) + 1), original),
          configurable: true,
        });
      }
      const s = scopeOf(c);
      const seen = [];
      for (let i = 0; i < 3; i++) {
        seen.push(s.url, methodOf(c), headerOf(c, 'accept'), s.header('x-other'), s.sessionId);
      }
      expect(seen.slice(0, 5)).toEqual(['https://gateway.test/', 'POST', 'text/plain', undefined, 's1']);
      expect(seen.slice(5, 10)).toEqual(seen.slice(0, 5));
      expect(Object.fromEntries(reads)).toEqual({ url: 1, method: 1, headers: 1 });
      return c.text('ok');
    });
    app.onError((err) => {
      throw err;
    });
    const req = new Request('https://gateway.test/', {
      method: 'POST',
      headers: { accept: 'text/plain', 'mcp-session-id': 's1' },
    });
    expect((await app.fetch(req, env, createExecutionContext())).status).toBe(200);
  });
});

describe('signingScopeOf', () => {
  it('throws MissingSecretError without SIGNING_SECRET, and is the same scope otherwise', async () => {
    const app = new Hono<AppEnv>();
    let same = false;
    app.get('/', (c) => {
      same = signingScopeOf(c) === scopeOf(c);
      return c.text('ok');
    });
    app.onError((err, c) => c.text(err instanceof MissingSecretError ? 'missing' : 'other', 500));
    const ask = (e: Env) => app.fetch(new Request('https://gateway.test/'), e, createExecutionContext());
    expect(await (await ask({ ...env, SIGNING_SECRET: '' })).text()).toBe('missing');
    expect(await (await ask(env)).text()).toBe('ok');
    expect(same).toBe(true);
  });
});
