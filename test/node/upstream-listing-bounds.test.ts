/**
 * What a whole upstream listing keeps while its pages arrive (prompt-pages.ts, skills.ts): each
 * prompts/list entry cut to what sanitizing can publish of it, with nothing published changed, and
 * each skills/list page mapped as it arrives, so a listing of many heavy pages never holds them all;
 * one longer than the page bound is cut there, not lost.
 */
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cutListed } from '../../src/catalog/upstreams/prompt-pages.js';
import { sanitizeListing } from '../../src/catalog/upstreams/sanitize.js';
import type { UpstreamConfig } from '../../src/catalog/upstreams/schema.js';
import { listSkills } from '../../src/catalog/upstreams/skills.js';
import { MAX_SKILL_PAGES } from '../../src/catalog/upstreams/skill-entries.js';
import type { Json } from '../../src/catalog/upstreams/wire.js';
import { deadline } from '../../src/catalog/upstreams/deadline.js';
import { pagedUpstream } from '../helpers/paged-upstream.js';

// Heap sizes are compared after a full collection: what is measured is what is still reachable.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapMiB = () => (gc(), process.memoryUsage().heapUsed / 2 ** 20);

// sanitizeListing and mapSkills log what they skip; these tests make them skip on purpose.
beforeEach(() => void vi.spyOn(console, 'warn').mockImplementation(() => {}));
afterEach(() => vi.restoreAllMocks());

const upstream = {
  id: 'gh',
  prefix: 'gh',
  url: new URL('https://gh.example/mcp'),
  timeoutMs: 30_000,
  enabled: true,
  headers: {},
  allow: null,
  deny: ['secret*'],
  aliases: { old: 'renamed' },
  groups: ['eng'],
} satisfies UpstreamConfig;

describe('a prompts/list entry cut as its page arrives', () => {
  const args = [
    { name: 'n'.repeat(100), title: 't'.repeat(300), description: 'd'.repeat(5000), required: true },
    'not an argument',
    null,
    { name: '' },
    { name: 'flag', required: 'yes', extra: 'e'.repeat(10_000) },
    ...Array.from({ length: 60 }, (_, i) => ({ name: `a${i}` })),
  ];
  const icons = [
    { src: 'javascript:alert(1)' },
    { src: 'https://icons.example/a.png', mimeType: 'image/png', sizes: ['48x48'] },
    { src: `data:image/png;base64,${'A'.repeat(200_000)}` },
    { src: 'data:image/png;base64,AAAA' },
  ];
  const listed: unknown[] = [
    { name: 'full', title: 'T'.repeat(300), description: 'D'.repeat(5000), arguments: args, icons, _meta: { x: 1 } },
    { name: 'n'.repeat(300) },
    { name: 'n'.repeat(5000), description: 'long name' },
    'a string',
    null,
    42,
    { name: 42 },
    { name: '' },
    { name: 'secret-plan' },
    { name: 'old', description: 'aliased' },
    { name: 'odd', arguments: 'not a list', icons: 'none', title: 7 },
    // Enough 4,000-character descriptions to pass the 640 KiB listing bound: the rest is skipped alike.
    ...Array.from({ length: 200 }, (_, i) => ({ name: `p${i}`, description: 'x'.repeat(9000), pad: 'y'.repeat(9000) })),
  ];

  it('is published exactly as the entry would be', () => {
    const cut = listed.map(cutListed).filter((c) => c !== undefined);
    const published = sanitizeListing(upstream, '.', listed);
    expect(published.length).toBeGreaterThan(100);
    expect(published.length).toBeLessThan(200);
    expect(sanitizeListing(upstream, '.', cut)).toEqual(published);
  });

  it('keeps only the fields sanitizing reads, never longer than 4,000 characters; nothing of one never published', () => {
    expect(cutListed({ name: 'p', description: 'x'.repeat(9000), pad: 'y'.repeat(9000), _meta: {} })).toEqual({
      name: 'p',
      description: 'x'.repeat(4000),
    });
    expect(cutListed(listed[0])).toMatchObject({
      title: 'T'.repeat(300),
      description: 'D'.repeat(4000),
      arguments: expect.arrayContaining([
        { name: 'n'.repeat(100), title: 't'.repeat(300), description: 'd'.repeat(4000), required: true },
        null,
        { name: 'flag' },
      ]),
      icons: [{ src: 'https://icons.example/a.png', mimeType: 'image/png' }, { src: 'data:image/png;base64,AAAA' }],
    });
    for (const bad of ['a string', null, 42, { name: 42 }, { name: '' }]) expect(cutListed(bad)).toBeUndefined();
  });
});

describe('a skills/list listing of many pages', () => {
  it('keeps the mapped skills, not the pages: 100 pages of 400 KB hold no more than a few MiB', async () => {
    const junk = 'j'.repeat(40_000);
    let base = 0;
    let atLast = 0;
    const { client } = pagedUpstream(
      (_method, params) => {
        const page = Number(params.cursor ?? 0);
        if (page === 0) base = heapMiB();
        if (page === 99) atLast = heapMiB();
        const skills = Array.from({ length: 10 }, (_, i) => ({
          uri: `skill://s${page * 10 + i}/SKILL.md`,
          frontmatter: { name: `s${page * 10 + i}`, description: 'd' },
          resources: 'dynamic',
          _meta: { junk },
        }));
        return page < 99 ? { skills, nextCursor: String(page + 1) } : { skills };
      },
      { extensions: { 'io.modelcontextprotocol/skills': {} } },
    );
    const { skills, skillsError } = await listSkills(client, upstream, deadline(30_000));
    expect(skillsError).toBeUndefined();
    expect(skills).toHaveLength(1000);
    // The 99 pages before the last carried 38 MiB of entries; what is kept of them is about 150 KB.
    expect(atLast - base).toBeLessThan(8);
  });
});

describe('a listing longer than its page bound', () => {
  /** One entry a page (`entry(n)` for the n-th), and always a nextCursor: it never ends by itself. */
  const endless = (key: 'prompts' | 'skills', entry: (n: number) => Json, capabilities?: Json) =>
    pagedUpstream((_method, params) => {
      const n = Number(params.cursor ?? 0);
      return { [key]: [entry(n)], nextCursor: String(n + 1) };
    }, capabilities);
  const warned = () => vi.mocked(console.warn).mock.calls.map(([line]) => JSON.parse(String(line)) as Json);

  it('keeps the prompts of the pages read and logs the cut, rather than failing the whole listing', async () => {
    const { client, asked } = endless('prompts', (n) => ({ name: `p${n}` }));
    const prompts = await client.listPrompts();
    expect(asked).toHaveLength(100);
    expect(prompts.map((p) => p.name)).toEqual(Array.from({ length: 100 }, (_, n) => `p${n}`));
    expect(warned()).toContainEqual({ msg: 'upstream prompts listing cut past its page bound', pages: 100, kept: 100 });
  });

  it('keeps the skills of the pages read and logs the cut, rather than failing the skills listing', async () => {
    const skill = (n: number) => ({
      uri: `skill://s${n}/SKILL.md`,
      frontmatter: { name: `s${n}`, description: 'd' },
      resources: 'dynamic',
    });
    const { client, asked } = endless('skills', skill, { extensions: { 'io.modelcontextprotocol/skills': {} } });
    const { skills, skillsError } = await listSkills(client, upstream, deadline(30_000));
    expect(skillsError).toBeUndefined();
    expect(asked).toHaveLength(MAX_SKILL_PAGES);
    expect(skills?.map((s) => s.frontmatter.name)).toEqual(Array.from({ length: MAX_SKILL_PAGES }, (_, n) => `s${n}`));
    expect(warned()).toContainEqual({
      msg: 'upstream skills listing cut past its page bound',
      upstream: 'gh',
      pages: MAX_SKILL_PAGES,
      kept: MAX_SKILL_PAGES,
    });
  });
});
