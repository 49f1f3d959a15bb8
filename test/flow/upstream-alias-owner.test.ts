/**
 * An alias owns the name it publishes: over the upstream's own prompt of that name, and over a later
 * alias onto the same name (the configuration's order decides, never the listing's). The listing,
 * prompts/get and completion/complete must agree on who that is, and a prompt that lost its name is
 * reachable by none. The upstream is a real SDK server in this isolate (test/helpers/in-isolate-upstream.ts).
 */
import { completable, McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { mountInIsolate, sdkUpstream } from '../helpers/in-isolate-upstream.js';
import { adminFetch, openSession, type Session } from '../helpers/worker.js';

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
});
