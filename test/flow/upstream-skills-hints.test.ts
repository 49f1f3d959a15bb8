/**
 * An upstream's cache hints on `skills/list` narrow the gateway's hints as its prompts/list hints do
 * (docs/caching.md): its skills are part of the content every list is served from, so a skills
 * listing the upstream called `private` or `ttlMs: 0` is never served as `public`, and a change of
 * those hints alone is a new snapshot. The upstream is a real SDK server with the Skills extension
 * in this isolate (test/helpers/in-isolate-upstream.ts); its skills/list answer gets the hints
 * added, since the SDK configures hints for the core list methods only.
 */
import { env, SELF } from 'cloudflare:test';
import { McpServer } from '@modelcontextprotocol/server';
import { memorySkillFiles, SkillCatalog } from '@modelcontextprotocol/server/ext/skills';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CacheHints } from '../../src/catalog/hints.js';
import { upstreamStub } from '../../src/catalog/stubs.js';
import { mountInIsolate, sdkUpstream } from '../helpers/in-isolate-upstream.js';
import { manifest } from '../helpers/skills.js';
import { modernPost } from '../helpers/protocol.js';
import { MCP_URL } from '../helpers/worker.js';

/** What the upstream adds to each skills/list answer; undefined: nothing (as the SDK answers). */
let skillsHints: CacheHints | undefined;

/**
 * Mounts the upstream `id` (with a prompt or none: then the gateway never asks it for prompts); the undo.
 * Each kind its own id and host, since an upstream's object keeps the capabilities it was first told.
 */
async function mount(id: string, prompt: boolean): Promise<() => Promise<void>> {
  const files = { 'review/SKILL.md': manifest('review', 'Reviews code') };
  const catalog = await SkillCatalog.load(memorySkillFiles(files), { onWarning: () => undefined });
  const sdk = sdkUpstream(() => {
    // Wider than the gateway's own: its prompts narrow nothing, so only the skills' hints can.
    const cacheHints = { 'prompts/list': { ttlMs: 300_000, cacheScope: 'public' as const } };
    const server = new McpServer({ name: 'hinted-skills', version: '1.0.0' }, { cacheHints });
    if (prompt)
      server.registerPrompt('hello', { description: 'hello' }, () => ({
        messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }],
      }));
    catalog.attach(server);
    return server;
  });
  return mountInIsolate(
    `${id}.example`,
    async (req) => {
      const res = await sdk(req);
      if (req.headers.get('mcp-method') !== 'skills/list' || !skillsHints) return res;
      const reply = await res.json<{ result: Record<string, unknown> }>();
      Object.assign(reply.result, skillsHints);
      return Response.json(reply);
    },
    { id, prefix: id },
  );
}

/** A modern call of `method` on the gateway: its result. */
async function modern(method: string): Promise<Record<string, unknown>> {
  const { init } = modernPost(method);
  return (await (await SELF.fetch(MCP_URL, init)).json<{ result: Record<string, unknown> }>()).result;
}

/** The upstream mounted for the tests of the `describe` that calls this, and gone after them. */
function mountedWhileRunning(id: string, prompt: boolean): void {
  let unmount: () => Promise<void>;
  beforeAll(async () => void (unmount = await mount(id, prompt)));
  afterAll(() => unmount());
}

const hintsOf = async (method: string) => {
  const { ttlMs, cacheScope } = await modern(method);
  return { ttlMs, cacheScope };
};

const LISTS = ['skills/list', 'resources/list', 'prompts/list'];

/** Lists upstream `id` (its `prompts` and its one skill) and finds every list served with `hints`. */
async function expectListedWith(id: string, prompts: number, hints: Record<string, unknown>): Promise<void> {
  expect(await upstreamStub(env, id).refresh(id)).toMatchObject({ ok: true, prompts });
  expect(JSON.stringify((await modern('skills/list')).skills)).toContain(`skill://${id}/review/SKILL.md`);
  for (const m of LISTS) expect(await hintsOf(m), m).toEqual(hints);
}

describe("an upstream's skills/list cache hints", () => {
  mountedWhileRunning('hs', true);

  it('public and longer than the gateway TTL: they narrow nothing', async () => {
    skillsHints = { ttlMs: 300_000, cacheScope: 'public' };
    await expectListedWith('hs', 1, { ttlMs: 60_000, cacheScope: 'public' });
  });

  it('turned private and uncacheable (the same skills): a new snapshot, and every list is 0/private', async () => {
    skillsHints = { ttlMs: 0, cacheScope: 'private' };
    const r = await upstreamStub(env, 'hs').refresh('hs');
    for (const m of LISTS) expect(await hintsOf(m), m).toEqual({ ttlMs: 0, cacheScope: 'private' });
    expect(r.snapshot).toBeDefined();
  });

  it('a shorter public TTL narrows the TTL alone', async () => {
    skillsHints = { ttlMs: 20_000, cacheScope: 'public' };
    const r = await upstreamStub(env, 'hs').refresh('hs');
    for (const m of LISTS) expect(await hintsOf(m), m).toEqual({ ttlMs: 20_000, cacheScope: 'public' });
    expect(r.snapshot).toBeDefined();
  });
});

describe('an upstream with skills and no prompts', () => {
  mountedWhileRunning('ho', false);

  it("its private skills listing makes every list 0/private, though it lists no prompts' hints", async () => {
    skillsHints = { ttlMs: 0, cacheScope: 'private' };
    await expectListedWith('ho', 0, { ttlMs: 0, cacheScope: 'private' });
  });
});
