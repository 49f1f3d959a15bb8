/**
 * A configured upstream list can stop validating after the admin API accepted it: a secret it names
 * is deleted, or an upgrade tightens a rule. The entry that no longer validates is left out (logged
 * once, named in /status to an admin and in GET /admin/upstreams), while the local prompts and the
 * other upstreams keep serving, in both eras. The healthy upstream is a real SDK server in this
 * isolate (test/helpers/in-isolate-upstream.ts).
 */
import { createExecutionContext, env, SELF } from 'cloudflare:test';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { forgetUpstreamConfig, upstreamConfigs, UPSTREAMS_KEY } from '../../src/catalog/upstreams/config.js';
import { app } from '../../src/routes/app.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { mountInIsolate, sdkUpstream } from '../helpers/in-isolate-upstream.js';
import { modernPost } from '../helpers/protocol.js';
import { ADMIN_TOKEN, adminFetch, MCP_URL, openSession, publish } from '../helpers/worker.js';

const upstream = sdkUpstream(() => {
  const server = new McpServer({ name: 'healthy', version: '1.0.0' });
  server.registerPrompt('hello', { description: 'from ok' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'hello from ok' } }],
  }));
  return server;
});

/** `gone` names a secret no longer set; `dup` repeats `ok`'s prefix (each left out); `ok` is healthy. */
const DRIFTED = [
  { id: 'gone', url: 'https://gone.example/mcp', headers: { authorization: 'Bearer ${GONE_TOKEN}' } },
  { id: 'ok', url: 'https://ok.example/mcp', prefix: 'ok' },
  { id: 'dup', url: 'https://dup.example/mcp', prefix: 'ok' },
];

describe('an upstream whose configuration stopped validating', () => {
  let unmount: () => Promise<void>;
  const errors: string[] = [];
  beforeAll(async () => {
    await publish(FIXTURE_PROMPTS);
    unmount = await mountInIsolate('ok.example', upstream, { id: 'ok', prefix: 'ok' });
    // Stored as drift leaves it: the admin API would refuse this list, so it is put as an older build stored it.
    await env.PROMPTS.put(UPSTREAMS_KEY, JSON.stringify(DRIFTED));
    forgetUpstreamConfig(env);
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void errors.push(args.map(String).join(' ')));
  });
  afterAll(() => unmount());

  it('is left out, and the rest of the list is in force', async () => {
    expect((await upstreamConfigs(env)).map((u) => u.id)).toEqual(['ok']);
    const logged = errors.filter((l) => l.includes('upstreams left out'));
    expect(logged).toHaveLength(1);
    const line = JSON.parse(logged[0]!) as { source: string; problems: string[] };
    expect(line.source).toBe('admin list');
    expect(line.problems).toEqual([
      'UPSTREAMS[0].headers.authorization: secret GONE_TOKEN is not set',
      'UPSTREAMS[2].prefix: duplicate prefix "ok"',
    ]);
    // Read again (the isolate's copy): not logged again.
    await upstreamConfigs(env, true);
    expect(errors.filter((l) => l.includes('upstreams left out'))).toHaveLength(1);
  });

  it('keeps the local prompts and the healthy upstream serving in both eras', async () => {
    // Listed as the cron lists: each upstream in force through its own object.
    const refreshed = await (
      await adminFetch('POST', '/upstreams/refresh')
    ).json<{ upstreams: Record<string, { ok: boolean }> }>();
    expect(Object.keys(refreshed.upstreams)).toEqual(['ok']);
    expect(refreshed.upstreams.ok?.ok).toBe(true);
    const s = await openSession();
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const listed = await s.call('prompts/list', cursor === undefined ? {} : { cursor });
      expect(listed.body.error).toBeUndefined();
      names.push(...(listed.body.result.prompts as { name: string }[]).map((p) => p.name));
      cursor = listed.body.result.nextCursor as string | undefined;
    } while (cursor !== undefined);
    expect(names).toEqual(expect.arrayContaining([FIXTURE_PROMPTS[0]!.name, 'ok.hello']));
    expect(names.some((n) => n.startsWith('gone.') || n.startsWith('dup.'))).toBe(false);
    const got = await s.call('prompts/get', { name: 'ok.hello' });
    expect(got.body.result.messages[0].content.text).toBe('hello from ok');
    // The left-out upstream's names are unknown, as a removed upstream's are.
    const gone = await s.call('prompts/get', { name: 'gone.anything' });
    expect(gone.body.error.code).toBe(-32602);
    const modern = await SELF.fetch(MCP_URL, modernPost('prompts/list').init);
    expect(modern.status).toBe(200);
    const body = await modern.json<{ result: { prompts: { name: string }[] } }>();
    expect(body.result.prompts.map((p) => p.name)).toContain(names[0]);
  });

  it('is named to an admin in /status and GET /admin/upstreams, and to nobody else', async () => {
    const problems = [
      'UPSTREAMS[0].headers.authorization: secret GONE_TOKEN is not set',
      'UPSTREAMS[2].prefix: duplicate prefix "ok"',
    ];
    const open = await (await SELF.fetch('https://gateway.test/status')).json<{ upstreamProblems: unknown }>();
    // AUTH=none: access control is off, and anyone is the operator's reader.
    expect(open.upstreamProblems).toEqual(problems);
    const guarded = { ...env, AUTH: 'apikey' } as Env;
    const ctx = createExecutionContext();
    const status = async (headers: Record<string, string>) => {
      const res = await app.fetch(new Request('https://gateway.test/status', { headers }), guarded, ctx);
      return (await res.json<{ upstreamProblems: unknown }>()).upstreamProblems;
    };
    expect(await status({})).toBe('restricted');
    expect(await status({ authorization: `Bearer ${ADMIN_TOKEN}` })).toEqual(problems);
    const admin = await (await adminFetch('GET', '/upstreams')).json<{ source: string; problems: string[] }>();
    expect(admin).toMatchObject({ source: 'admin', problems });
  });
});
