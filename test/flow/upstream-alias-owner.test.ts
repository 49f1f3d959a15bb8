/**
 * An alias owns the name it publishes: over the upstream's own prompt of that name, and over a later
 * alias onto the same name (the configuration's order decides, never the listing's). The listing,
 * prompts/get and completion/complete must agree on who that is, and a prompt that lost its name is
 * reachable by none, and /status names it. The upstream is a real SDK server in this isolate (test/helpers/in-isolate-upstream.ts).
 */
import { completable, McpServer } from '@modelcontextprotocol/server';
import { createExecutionContext, env, SELF } from 'cloudflare:test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { KV_KEYS } from '../../src/catalog/store.js';
import { app } from '../../src/routes/app.js';
import type { CatalogSnapshot } from '../../src/catalog/types.js';
import { mountInIsolate, sdkUpstream } from '../helpers/in-isolate-upstream.js';
import { ADMIN_TOKEN, adminFetch, openSession, type Session } from '../helpers/worker.js';

/** In the upstream's listing order: `later` is listed before `first`, both aliased onto `both`. */
const PROMPTS = ['a', 'b', 'later', 'first', 'keep'];

/** Each prompt says who it is: in its description, its text and its one completion value. */
const upstream = sdkUpstream(() => {
  const s = new McpServer({ name: 'aliased', version: '1.0.0' });
  for (const name of PROMPTS)
    s.registerPrompt(
      name,
      { description: `the ${name} prompt`, argsSchema: z.object({ topic: completable(z.string(), () => [name]) }) },
      () => ({ messages: [{ role: 'user', content: { type: 'text', text: `served by ${name}` } }] }),
    );
  return s;
});

const ENTRY = { id: 'gh', prefix: 'gh', aliases: { a: 'b', first: 'both', later: 'both' } };

async function listed(s: Session): Promise<{ name: string; description?: string }[]> {
  const out: { name: string; description?: string }[] = [];
  let cursor: string | undefined;
  do {
    const page = await s.call('prompts/list', cursor === undefined ? {} : { cursor });
    expect(page.body.error).toBeUndefined();
    out.push(...(page.body.result.prompts as { name: string; description?: string }[]));
    cursor = page.body.result.nextCursor as string | undefined;
  } while (cursor !== undefined);
  return out.filter((p) => p.name.startsWith('gh.'));
}

const complete = (s: Session, name: string) =>
  s.call('completion/complete', { ref: { type: 'ref/prompt', name }, argument: { name: 'topic', value: '' } });

describe('an alias onto a name taken twice', () => {
  let unmount: () => Promise<void>;
  beforeAll(async () => {
    unmount = await mountInIsolate('aliased.example', upstream, ENTRY);
    const refreshed = await (
      await adminFetch('POST', '/upstreams/refresh')
    ).json<{ upstreams: Record<string, { ok: boolean }> }>();
    expect(refreshed.upstreams.gh?.ok).toBe(true);
  });
  afterAll(() => unmount());

  it('lists each name once, as the prompt a get and a completion of it reach', async () => {
    const s = await openSession();
    const prompts = await listed(s);
    expect(prompts.map((p) => [p.name, p.description])).toEqual([
      ['gh.b', 'the a prompt'],
      ['gh.both', 'the first prompt'],
      ['gh.keep', 'the keep prompt'],
    ]);
    for (const [name, owner] of [
      ['gh.b', 'a'],
      ['gh.both', 'first'],
      ['gh.keep', 'keep'],
    ] as const) {
      const got = await s.call('prompts/get', { name, arguments: { topic: 't' } });
      expect(got.body.error, name).toBeUndefined();
      expect(got.body.result.messages[0].content.text, name).toBe(`served by ${owner}`);
      const done = await complete(s, name);
      expect(done.body.error, name).toBeUndefined();
      expect(done.body.result.completion.values, name).toEqual([owner]);
    }
  });

  it('reaches a prompt that lost its name by no other name', async () => {
    const s = await openSession();
    for (const name of ['gh.a', 'gh.first', 'gh.later']) {
      const got = await s.call('prompts/get', { name, arguments: { topic: 't' } });
      expect(got.body.error, name).toMatchObject({ code: -32602, message: `Unknown prompt "${name}"` });
      expect((await complete(s, name)).body.error, name).toMatchObject({ code: -32602 });
    }
  });

  it('names the prompts that lost their names, and why, in /status', async () => {
    const res = await SELF.fetch('https://gateway.test/status', {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(200);
    const { upstreams } = await res.json<{ upstreams: { id: string; skipped?: unknown }[] }>();
    expect(upstreams.find((u) => u.id === 'gh')?.skipped).toEqual([
      { name: 'gh.b', original: 'b', reason: 'the alias of "a" takes the name' },
      { name: 'gh.both', original: 'later', reason: 'the alias of "first" takes the name' },
    ]);
    // The operator's alone: the snapshot every isolate loads does not carry them.
    const head = await env.PROMPTS.get<CatalogSnapshot>(KV_KEYS.head, 'json');
    const gh = head?.upstreams?.find((u) => u.id === 'gh');
    expect(gh?.prompts.map((p) => p.name)).toEqual(['gh.b', 'gh.both', 'gh.keep']);
    expect(gh).not.toHaveProperty('skipped');
  });

  it("names them to an admin only: a reader sees the upstream's health without them", async () => {
    const minted = await adminFetch('POST', '/keys', { name: 'alias-reader' });
    expect(minted.status).toBe(201);
    const { key } = await minted.json<{ key: string }>();
    const guarded = { ...env, AUTH: 'apikey' } as Env;
    const ghOf = async (bearer: string) => {
      const req = new Request('https://gateway.test/status', { headers: { authorization: `Bearer ${bearer}` } });
      const res = await app.fetch(req, guarded, createExecutionContext());
      expect(res.status).toBe(200);
      return (await res.json<{ upstreams: Record<string, unknown>[] }>()).upstreams.find((u) => u.id === 'gh');
    };
    const reader = await ghOf(key);
    expect(reader).toMatchObject({ id: 'gh', state: 'healthy', prompts: 3 });
    expect(reader).not.toHaveProperty('skipped');
    expect((await ghOf(ADMIN_TOKEN))?.skipped).toHaveLength(2);
  });
});
