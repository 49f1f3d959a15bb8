/**
 * The writer's side of upstream skills (catalog-writer.ts upstreamsReported, upstreams/merge-report.ts,
 * upstreams/skills.ts nextSkills): skills are part of an upstream's state, a change of them is a new generation whose
 * event names `skills`, a skills failure keeps the last good skills listing (marked) without a
 * list_changed, and a failure of either half never costs the other. The change feed's window is
 * held open so the event the writer published can be read as it is (test/helpers/feed.ts).
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogWriter } from '../../src/catalog/stubs.js';
import type { UpstreamPrompt, UpstreamSkill, UpstreamState } from '../../src/catalog/types.js';
import { forgetUpstreamConfig, UPSTREAMS_KEY } from '../../src/catalog/upstreams/config.js';
import type { ListReport } from '../../src/catalog/upstreams/report.js';
import { feedStub, flushFeed, holdFeed } from '../helpers/feed.js';

const D = `sha256:${'a'.repeat(64)}`;
const prompt = (name: string): UpstreamPrompt => ({ name: `sk.${name}`, origin: { upstream: 'sk', name } });
const skill = (description: string): UpstreamSkill => ({
  uri: 'skill://sk/review/SKILL.md',
  frontmatter: { name: 'review', description },
  resources: [{ uri: 'skill://sk/review/SKILL.md', digest: D, size: 10 }],
  origin: { upstream: 'sk', uri: 'skill://review/SKILL.md' },
});
const base = { id: 'sk', prefix: 'sk' };

/** Reports with the feed's window held; what the writer announced (the lists), or null when it announced nothing. */
async function reportAndRead(
  r: ListReport,
): Promise<{ lists: string[] | null; state: UpstreamState | undefined; snapshot: boolean }> {
  await holdFeed();
  const before = await runInDurableObject(feedStub(), (_o, ctx) => ctx.storage.get<number>('pending'));
  const out = await catalogWriter(env).upstreamsReported([r]);
  const { pending, lists } = await runInDurableObject(feedStub(), async (_o, ctx) => ({
    pending: await ctx.storage.get<number>('pending'),
    lists: (await ctx.storage.get<string[]>('pendingLists')) ?? null,
  }));
  await flushFeed();
  const state = (await catalogWriter(env).upstreams()).find((u) => u.id === 'sk');
  return { lists: pending !== before && pending !== undefined ? lists : null, state, snapshot: !!out.snapshot };
}

beforeAll(async () => {
  await env.PROMPTS.put(UPSTREAMS_KEY, JSON.stringify([{ id: 'sk', url: 'https://sk.example/mcp', prefix: 'sk' }]));
  forgetUpstreamConfig(env);
});

afterAll(async () => {
  await env.PROMPTS.delete(UPSTREAMS_KEY);
  forgetUpstreamConfig(env);
  await catalogWriter(env).reconcileUpstreams();
  await flushFeed();
});

describe('upstream skills in the writer', () => {
  it('a first listing with skills announces prompts and skills; the state holds the skills', async () => {
    const r = await reportAndRead({ ...base, prompts: [prompt('a')], skills: [skill('one')] });
    expect(r.lists).toEqual(['prompts', 'skills']);
    expect(r.state).toMatchObject({ ok: true, skills: [skill('one')] });
    expect(r.state?.skillsError).toBeUndefined();
  });

  it("a change of the upstream's skills alone is a new generation announced as ['skills']", async () => {
    const r = await reportAndRead({ ...base, prompts: [prompt('a')], skills: [skill('two')] });
    expect(r.lists).toEqual(['skills']);
    expect(r.state?.skills).toEqual([skill('two')]);
  });

  it('the same listing again changes nothing', async () => {
    const r = await reportAndRead({ ...base, prompts: [prompt('a')], skills: [skill('two')] });
    expect(r).toMatchObject({ lists: null, snapshot: false });
  });

  it("a prompts change alone is announced as ['prompts']", async () => {
    const r = await reportAndRead({ ...base, prompts: [prompt('a'), prompt('b')], skills: [skill('two')] });
    expect(r.lists).toEqual(['prompts']);
  });

  it('a skills failure keeps the last good skills, marked, and the prompts listing: no list_changed', async () => {
    const r = await reportAndRead({ ...base, prompts: [prompt('a'), prompt('b')], skillsError: 'timeout: slow' });
    expect(r).toMatchObject({ lists: null, snapshot: true });
    expect(r.state).toMatchObject({ ok: true, skills: [skill('two')], skillsError: 'timeout: slow' });
    expect(r.state?.prompts).toHaveLength(2);
  });

  it('a prompts failure keeps the last good prompts (stale) and still takes the fresh skills', async () => {
    const r = await reportAndRead({ ...base, error: 'http_500: boom', skills: [skill('three')] });
    expect(r.lists).toEqual(['skills']);
    expect(r.state).toMatchObject({ ok: false, lastError: 'http_500: boom', skills: [skill('three')] });
    expect(r.state?.prompts).toHaveLength(2);
    expect(r.state?.skillsError).toBeUndefined();
  });

  it('an upstream that stops declaring skills loses them: announced as skills', async () => {
    const r = await reportAndRead({ ...base, prompts: [prompt('a'), prompt('b')] });
    expect(r.lists).toEqual(['skills']);
    expect(r.state?.skills).toBeUndefined();
  });
});
