/**
 * The warm hot path makes no promise: once an isolate holds the catalog, an in-session
 * prompts/list and a prompts/get of a local prompt are answered synchronously by dispatch
 * (rpc/dispatch.ts), so no promise, async frame or microtask is paid per request
 * (bench/RESULTS.md). A name the catalog does not know still gets its answer, through the path
 * that may list upstreams first.
 */
import { createExecutionContext, env } from 'cloudflare:test';
import { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { currentCatalog } from '../../src/catalog/store.js';
import type { AppEnv } from '../../src/env.js';
import { callContext } from '../../src/rpc/context.js';
import { call } from '../../src/rpc/dispatch.js';
import { scopeOf } from '../../src/routes/scope.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { catalogQuery, publish } from '../helpers/worker.js';

type Answer = string | Promise<string>;

/**
 * Runs one JSON-RPC request through dispatch inside a route (a real request scope); resolves what
 * `call` returned, boxed (an async function would adopt a returned promise and hide it).
 */
async function dispatchOnce(method: string, params: Record<string, unknown>): Promise<{ answer: Answer }> {
  let answer: Answer | undefined;
  const app = new Hono<AppEnv>();
  app.onError((err) => {
    throw err;
  });
  app.post('/', (c) => {
    const ctx = callContext(scopeOf(c), 'legacy', '2025-11-25', 'session');
    answer = call({ kind: 'request', id: 7, method, params }, ctx);
    return c.text('ok');
  });
  const res = await app.fetch(new Request('https://gateway.test/', { method: 'POST' }), env, createExecutionContext());
  expect(res.status).toBe(200);
  return { answer: answer! };
}

describe('the warm hot path', () => {
  beforeAll(async () => {
    await publish(FIXTURE_PROMPTS);
    // The isolate's catalog, as the first request of a warm isolate would have loaded it.
    await currentCatalog(catalogQuery(Number.MAX_SAFE_INTEGER, () => undefined));
  });

  it('answers prompts/list without a promise once its page is built', async () => {
    // The first list of an isolate builds the page (catalog/listing.ts); every later one reuses it.
    await (
      await dispatchOnce('prompts/list', {})
    ).answer;
    const { answer } = await dispatchOnce('prompts/list', {});
    expect(typeof answer).toBe('string');
    expect(JSON.parse(answer as string).result.prompts.map((p: { name: string }) => p.name)).toContain('greet');
  });

  it('answers prompts/get of a local prompt without a promise', async () => {
    const { answer } = await dispatchOnce('prompts/get', {
      name: 'greet',
      arguments: { who: 'alice', tone: 'formal' },
    });
    expect(typeof answer).toBe('string');
    const text = JSON.parse(answer as string).result.messages[0].content.text;
    expect(text).toBe('Say hello to alice in a formal tone.');
  });

  it('answers a bad prompts/get of a known prompt at once, as a JSON-RPC error', async () => {
    const { answer } = await dispatchOnce('prompts/get', { name: 'greet', arguments: {} });
    expect(typeof answer).toBe('string');
    expect(JSON.parse(answer as string).error).toMatchObject({ code: -32602 });
  });

  it('still answers a name the catalog does not know (through the path that may list upstreams)', async () => {
    const { answer } = await dispatchOnce('prompts/get', { name: 'no-such-prompt' });
    expect(JSON.parse(await answer).error).toMatchObject({ code: -32602 });
  });
});
