/**
 * Usage counting through the real Worker, UsageStore and session objects: concurrent prompts/get and
 * completion/complete from two clients in both eras are counted exactly once each flush has run; a
 * flush that fails loses nothing; errors count by class; `since` and `by` select; bad input is a 400.
 * Requests go through the Worker's fetch with their own execution contexts, so a test waits for the
 * flushes themselves (waitOnExecutionContext), never for a duration.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { datasetOf } from '../../src/usage/analytics.js';
import { dailyUse } from '../../src/usage/query.js';
import { HOUR_MS } from '../../src/usage/store.js';
import { usageObject, usageStore } from '../../src/usage/stub.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { envelope, initialize, LEGACY, modernHeaders, postInit, request } from '../helpers/protocol.js';
import { ADMIN_TOKEN, MCP_URL, publish } from '../helpers/worker.js';
import { counts, send, settle, usage, usageEnv } from '../helpers/usage.js';
import { waitFor } from '../helpers/feed.js';
import { hold } from '../helpers/hold.js';

/** A modern POST from a client naming itself in `_meta`. */
function modern(client: string, method: string, params: Record<string, unknown>, e: Env = usageEnv) {
  const info = { 'io.modelcontextprotocol/clientInfo': { name: client, version: '1' } };
  const body = request(method, { ...params, _meta: envelope(info) });
  const name = method === 'prompts/get' || method === 'tools/call' ? (params.name as string) : undefined;
  return send(MCP_URL, { method: 'POST', headers: modernHeaders(method, name), body: JSON.stringify(body) }, e);
}

/** A legacy session opened by a client with this name; `call` posts one request in it. */
async function legacy(client: string) {
  const res = await send(MCP_URL, postInit(initialize(LEGACY, {}, client)));
  expect(res.status).toBe(200);
  const id = res.headers.get('mcp-session-id')!;
  const opts = { session: id, version: LEGACY };
  const note = await send(MCP_URL, postInit({ jsonrpc: '2.0', method: 'notifications/initialized' }, opts));
  expect(note.status).toBe(202);
  return (method: string, params: Record<string, unknown>) => send(MCP_URL, postInit(request(method, params), opts));
}

const GET = { name: 'greet', arguments: { who: 'alice' } };
const COMPLETE = { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'al' } };

/** The counts that moved between two readings, and by how much. */
const addedSince = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(after)
      .map(([k, v]) => [k, v - (before[k] ?? 0)])
      .filter(([, v]) => v !== 0),
  );

async function expectOk(res: Response) {
  const body = (await res.json()) as any;
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(body.error, JSON.stringify(body)).toBeUndefined();
}

/** A prompt kept out of the tools mirror. */
const NO_TOOL = { name: 'no-tool', tool: false, messages: [{ role: 'user', content: { type: 'text', text: 'x' } }] };

beforeAll(async () => {
  await publish([...FIXTURE_PROMPTS, NO_TOOL] as typeof FIXTURE_PROMPTS);
});

describe('usage counts', () => {
  it('are exact under concurrent load from two clients in both eras, once one flush interval has passed', async () => {
    // Every flush here also writes to the (local) Analytics Engine binding vitest.config.ts adds.
    expect(datasetOf(usageEnv)).toBeDefined();
    await settle();
    const before = await counts('prompt');
    const sessions = { a: await legacy('client-a'), b: await legacy('client-b') };
    const N = 12;
    const calls: Promise<Response>[] = [];
    for (let i = 0; i < N; i++)
      for (const c of ['a', 'b'] as const) {
        calls.push(modern(`client-${c}`, 'prompts/get', GET), modern(`client-${c}`, 'completion/complete', COMPLETE));
        calls.push(sessions[c]('prompts/get', GET), sessions[c]('completion/complete', COMPLETE));
      }
    // One failing get per client and era: a missing required argument is -32602.
    calls.push(modern('client-a', 'prompts/get', { name: 'greet' }), sessions.b('prompts/get', { name: 'greet' }));
    // Names nobody publishes, each its own: counted under one name, not one row per made-up name.
    for (let i = 0; i < 3; i++) calls.push(modern('client-a', 'prompts/get', { name: `made-up-${i}-${Date.now()}` }));
    const responses = await Promise.all(calls);
    await Promise.all(responses.slice(0, -5).map(expectOk));
    await settle();

    const added = addedSince(before, await counts('prompt'));
    expect(added).toEqual({
      'greet prompts/get modern ok': 2 * N,
      'greet prompts/get legacy ok': 2 * N,
      'greet completion/complete modern ok': 2 * N,
      'greet completion/complete legacy ok': 2 * N,
      'greet prompts/get modern -32602': 1,
      'greet prompts/get legacy -32602': 1,
      '(unknown) prompts/get modern -32602': 3,
    });

    const byClient = await counts('client');
    expect(byClient['client-a/1 prompts/get modern ok']).toBe(N);
    expect(byClient['client-b/1 completion/complete modern ok']).toBe(N);
    expect(byClient['client-a/1 prompts/get modern -32602']).toBe(1 + 3);
    expect(byClient['client-a/1 prompts/get legacy ok']).toBe(N);
    expect(byClient['client-b/1 completion/complete legacy ok']).toBe(N);
    expect(byClient['client-b/1 prompts/get legacy -32602']).toBe(1);
  });

  it("counts the mirror's tools/call of a prompt as a use of that prompt, on the catalog page's figures too", async () => {
    const mirror = { ...usageEnv, TOOLS_MIRROR: 'on' } as unknown as Env;
    await settle();
    const before = await counts('prompt');
    const daysBefore = (await dailyUse(env, 1)).get('greet')?.[0] ?? 0;
    await expectOk(await modern('client-a', 'tools/call', GET, mirror));
    // A tool the mirror does not list is no prompt's use: one row for every such name, a prompt the
    // mirror leaves out included.
    for (const name of [`made-up-${Date.now()}`, NO_TOOL.name]) {
      const unknown = await modern('client-a', 'tools/call', { name }, mirror);
      expect(((await unknown.json()) as any).error.message).toMatch(/Unknown tool/);
    }
    // A missing required argument is a tool execution error: a result, counted as a failed use of greet.
    const since = Date.now();
    const errorsBefore = await usageStore(env).errors(Math.floor(since / HOUR_MS));
    const toolErrors = () => errorsBefore.find((r) => r.class === 'tool_error')?.count ?? 0;
    const failed = (await (await modern('client-a', 'tools/call', { name: 'greet' }, mirror)).json()) as any;
    expect(failed.result.isError).toBe(true);
    await settle();
    const added = addedSince(before, await counts('prompt'));
    expect(added).toEqual({
      'greet tools/call modern ok': 1,
      'greet tools/call modern tool_error': 1,
      '(unknown) tools/call modern -32602': 2,
    });
    const errorsAfter = await usageStore(env).errors(Math.floor(since / HOUR_MS));
    expect(errorsAfter.find((r) => r.class === 'tool_error')?.count).toBe(toolErrors() + 1);
    expect((await dailyUse(env, 1)).get('greet')?.[0]).toBe(daysBefore + 2);
  });

  it('loses nothing when a flush fails: the batch is resent whole with the next flush', async () => {
    await settle();
    const before = (await counts('prompt'))['zeta prompts/get modern ok'] ?? 0;
    // A real failure of the real object: its table is gone, so its add() throws until it is back.
    await runInDurableObject(usageObject(env), (_o, state) => state.storage.sql.exec('ALTER TABLE usage RENAME TO u'));
    await Promise.all(Array.from({ length: 5 }, () => modern('client-a', 'prompts/get', { name: 'zeta' })));
    await settle();
    await runInDurableObject(usageObject(env), (_o, state) => state.storage.sql.exec('ALTER TABLE u RENAME TO usage'));
    expect((await counts('prompt'))['zeta prompts/get modern ok'] ?? 0).toBe(before);
    // The next request of any kind arms the next flush, which carries the failed batch: requests that
    // count nothing themselves here (reading the counts through /admin, a catalog page).
    await send('https://gateway.test/', { headers: { accept: 'text/html' } });
    await settle();
    expect((await counts('prompt'))['zeta prompts/get modern ok']).toBe(before + 5);
    // And the next count goes in the next flush, as ever.
    await expectOk(await modern('client-a', 'prompts/get', { name: 'zeta' }));
    await settle();
    expect((await counts('prompt'))['zeta prompts/get modern ok']).toBe(before + 6);
  });

  it('a failed flush is tried again in its own background task: an isolate that gets no more requests loses nothing', async () => {
    await settle();
    const before = (await counts('prompt'))['zeta prompts/get modern ok'] ?? 0;
    const warn = vi.spyOn(console, 'warn');
    try {
      await runInDurableObject(usageObject(env), (_o, state) =>
        state.storage.sql.exec('ALTER TABLE usage RENAME TO u'),
      );
      // Retries after 300, 600 and 1,200 ms: time enough to bring the store back in between.
      const slower = { ...usageEnv, USAGE_FLUSH_MS: '300' } as unknown as Env;
      await Promise.all(Array.from({ length: 3 }, () => modern('client-a', 'prompts/get', { name: 'zeta' }, slower)));
      // The first attempt fails; the store comes back before the retries run out, and no request follows.
      await waitFor(() => warn.mock.calls.some((c) => String(c[0]).includes('usage flush failed')), 'a failed flush');
    } finally {
      await runInDurableObject(usageObject(env), (_o, state) =>
        state.storage.sql.exec('ALTER TABLE u RENAME TO usage'),
      );
      warn.mockRestore();
    }
    await settle();
    expect((await counts('prompt'))['zeta prompts/get modern ok']).toBe(before + 3);
  });
  it('a store that does not answer is a failed flush: its batch is kept and resent, and counted once', async () => {
    await settle();
    const before = (await counts('prompt'))['zeta prompts/get modern ok'] ?? 0;
    const warn = vi.spyOn(console, 'warn');
    const store = hold(usageObject(env));
    try {
      const slower = { ...usageEnv, USAGE_FLUSH_MS: '300' } as unknown as Env;
      await Promise.all(Array.from({ length: 3 }, () => modern('client-a', 'prompts/get', { name: 'zeta' }, slower)));
      // The call held still passes its bound (5 s): a failure, retried later in the same task.
      await waitFor(() => warn.mock.calls.some((c) => String(c[0]).includes('usage flush failed')), 'a failed flush');
    } finally {
      // Let through, the held call is applied too: the resend of the same batch id is dropped by the store.
      await store.release();
      warn.mockRestore();
    }
    await settle();
    expect((await counts('prompt'))['zeta prompts/get modern ok']).toBe(before + 3);
  });
  it('counts failed requests by class, for /status', async () => {
    await settle();
    const since = Date.now();
    const before = await usageStore(env).errors(Math.floor(since / HOUR_MS));
    const was = (cls: string) => before.find((r) => r.class === cls)?.count ?? 0;
    // A legacy request under a session nobody opened: 404 with -32001.
    const stale = postInit(request('prompts/list'), { session: 'no-such-session' });
    expect((await send(MCP_URL, stale)).status).toBe(404);
    expect((await send(MCP_URL, stale)).status).toBe(404);
    // Only /mcp is counted: a route that does not exist is logged, not counted.
    expect((await send('https://gateway.test/nowhere', {})).status).toBe(404);
    // Nor is a path that only starts like it.
    expect((await send('https://gateway.test/mcpx', {})).status).toBe(404);
    await modern('client-a', 'prompts/get', { name: 'no-such-prompt' });
    await send(MCP_URL, { method: 'POST', headers: modernHeaders('prompts/list'), body: '{"jsonrpc":' });
    await settle();
    const { errorsSince } = await import('../../src/usage/query.js');
    const after = await errorsSince(env, since);
    expect(after['-32001']! - was('-32001')).toBe(2);
    expect((after['404'] ?? 0) - was('404')).toBe(0);
    expect(after['-32602']! - was('-32602')).toBe(1);
    expect(after['-32700']! - was('-32700')).toBe(1);
  });

  it('selects hours by since (ISO or epoch ms) and answers bad since or by with a 400', async () => {
    const hour = Math.floor(Date.now() / HOUR_MS);
    await usageStore(env).add([
      {
        id: 'since-test',
        batch: { usage: [[hour - 30, 'prompts/get', 'old-one', 'x/1', 'modern', 'ok', 4]], errors: [] },
      },
    ]);
    const has = (body: any) => body.rows.some((r: any) => r.key === 'old-one');
    expect(has(await usage())).toBe(false); // default: the last 24 hours
    const old = (hour - 31) * HOUR_MS;
    const iso = await usage(`?since=${new Date(old).toISOString()}`);
    expect(has(iso)).toBe(true);
    expect(iso.since).toBe(new Date(old).toISOString());
    expect(iso.totals.count).toBe(iso.rows.reduce((n: number, r: any) => n + r.count, 0));
    expect(has(await usage(`?since=${old}`))).toBe(true);
    expect(has(await usage(`?since=${(hour - 29) * HOUR_MS}`))).toBe(false);
    expect((await usage(`?since=${old}&by=client`)).rows.some((r: any) => r.key === 'x/1')).toBe(true);

    for (const [query, code] of [
      ['?since=yesterday', 'invalid_since'],
      ['?since=2026-13-45', 'invalid_since'],
      // A day its month lacks, which Date.parse would take as early March.
      ['?since=2026-02-30', 'invalid_since'],
      ['?since=2026-04-31T00:00:00Z', 'invalid_since'],
      ['?by=era', 'invalid_by'],
    ]) {
      const res = await send(`https://gateway.test/admin/usage${query}`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(res.status, query).toBe(400);
      expect(((await res.json()) as any).error.code, query).toBe(code);
    }
    const anon = await send('https://gateway.test/admin/usage', {});
    expect(anon.status).toBe(401);
  });

  it('does not count with USAGE=off', async () => {
    await settle();
    const before = (await counts('prompt'))['picture prompts/get modern ok'] ?? 0;
    const off = { ...usageEnv, USAGE: 'off' } as unknown as Env;
    const body = request('prompts/get', { name: 'picture', _meta: envelope() });
    const init = { method: 'POST', headers: modernHeaders('prompts/get', 'picture'), body: JSON.stringify(body) };
    await expectOk(await send(MCP_URL, init, off));
    await expectOk(await send(MCP_URL, init));
    await settle();
    expect((await counts('prompt'))['picture prompts/get modern ok']).toBe(before + 1);
  });
});
