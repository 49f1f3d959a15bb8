/**
 * Upstream skills (src/catalog/upstreams/skills.ts, skill-entries.ts): the mapping of `skills/list` entries under an
 * upstream's mount, the writer's next state, and listing,
 * following and reading against real SDK 2.x servers with the official Skills extension, in both eras.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { UpstreamClient } from '../../src/catalog/upstreams/client.js';
import type { UpstreamConfig } from '../../src/catalog/upstreams/schema.js';
import { listUpstream, nextSkills } from '../../src/catalog/upstreams/skills.js';
import {
  mapSkill,
  mapSkills,
  MAX_SKILLS_LISTING_BYTES,
  mountOf,
  SKILL_MAX_BYTES,
} from '../../src/catalog/upstreams/skill-entries.js';
import type { UpstreamSkill } from '../../src/catalog/types.js';
import { closedAfterAll, skillMd, skillsServer } from '../helpers/upstreams.js';

const started = closedAfterAll();

const digest = (s: string) => `sha256:${createHash('sha256').update(s).digest('hex')}`;
const D = digest('x');
const config = (url: string, id = 'up', prefix = id): UpstreamConfig =>
  ({ id, prefix, url: new URL(url), headers: {}, timeoutMs: 3000, enabled: true }) as UpstreamConfig;
const client = (u: UpstreamConfig) =>
  new UpstreamClient({ url: u.url, headers: {}, timeoutMs: u.timeoutMs, clientInfo: { name: 't', version: '1' } });
const entry = (path = 'review', resources: unknown = [{ uri: `skill://${path}/SKILL.md`, digest: D, size: 1 }]) => ({
  uri: `skill://${path}/SKILL.md`,
  frontmatter: { name: path.split('/').at(-1), description: 'd', 'x-extra': { kept: true } },
  resources,
  _meta: { dropped: true },
});

describe('mapping a skills/list entry', () => {
  it('mounts the SKILL.md and every file under skill://<mount>/, keeps the origin and the front matter verbatim', () => {
    const e = entry('acme/review', [
      { uri: 'skill://acme/review/SKILL.md', digest: D, size: 1 },
      { uri: 'skill://acme/review/refs/A.md', digest: D, size: 2 },
    ]);
    expect(mapSkill('gh', 'github', e)).toEqual({
      uri: 'skill://gh/acme/review/SKILL.md',
      frontmatter: e.frontmatter,
      resources: [
        { uri: 'skill://gh/acme/review/SKILL.md', digest: D, size: 1 },
        { uri: 'skill://gh/acme/review/refs/A.md', digest: D, size: 2 },
      ],
      origin: { upstream: 'github', uri: 'skill://acme/review/SKILL.md' },
    });
    expect(mapSkill('gh', 'github', entry('x', 'dynamic'))).toMatchObject({ resources: 'dynamic' });
  });

  it('skips entries that are malformed, not skill://, or over the SEP-2640 limits', () => {
    const many = Array.from({ length: 513 }, (_, i) => ({ uri: `skill://x/f${i}`, digest: D, size: 1 }));
    many[0] = { uri: 'skill://x/SKILL.md', digest: D, size: 1 };
    const cases: [string, unknown][] = [
      ['not skill://', { ...entry(), uri: 'https://example.com/x/SKILL.md' }],
      ['not a SKILL.md', { ...entry(), uri: 'skill://x/README.md' }],
      ['dot segments', { ...entry(), uri: 'skill://x/../SKILL.md' }],
      ['no description', { ...entry(), frontmatter: { name: 'x' } }],
      ['frontmatter too big', { ...entry(), frontmatter: { name: 'x', description: 'd'.repeat(17_000) } }],
      ['bad digest', entry('x', [{ uri: 'skill://x/SKILL.md', digest: 'sha256:zz', size: 1 }])],
      ['bad size', entry('x', [{ uri: 'skill://x/SKILL.md', digest: D, size: -1 }])],
      [
        'file outside the folder',
        entry('x', [
          { uri: 'skill://x/SKILL.md', digest: D, size: 1 },
          { uri: 'skill://y/a', digest: D, size: 1 },
        ]),
      ],
      ['no SKILL.md among the files', entry('x', [{ uri: 'skill://x/a.md', digest: D, size: 1 }])],
      ['over 512 files', entry('x', many)],
      ['over 16 MiB', entry('x', [{ uri: 'skill://x/SKILL.md', digest: D, size: SKILL_MAX_BYTES + 1 }])],
      ['not an object', 'skill://x/SKILL.md'],
    ];
    for (const [why, e] of cases) expect(typeof mapSkill('m', 'u', e), why).toBe('string');
    // At the limits exactly: accepted.
    expect(typeof mapSkill('m', 'u', entry('x', many.slice(0, 512)))).toBe('object');
    expect(
      typeof mapSkill('m', 'u', entry('x', [{ uri: 'skill://x/SKILL.md', digest: D, size: SKILL_MAX_BYTES }])),
    ).toBe('object');
  });

  it('keeps at most MAX_SKILLS_LISTING_BYTES of listing in UTF-8 bytes, not characters', () => {
    // 200 skills whose front matter holds 5,000 three-byte characters: ~15 KB each as stored, ~3 MB in all.
    // (In a field of its own: a description is at most 1,024 characters.)
    const wide = Array.from({ length: 200 }, (_, i) => {
      const e = entry(`s${i}`);
      return { ...e, frontmatter: { ...e.frontmatter, 'x-notes': 'ह'.repeat(5000) } };
    });
    const kept = mapSkills({ id: 'u', prefix: '' }, wide);
    expect(kept.length).toBeGreaterThan(0);
    const bytes = kept.reduce((n, s) => n + new TextEncoder().encode(JSON.stringify(s)).length, 0);
    expect(bytes).toBeLessThanOrEqual(MAX_SKILLS_LISTING_BYTES);
  });

  it('keeps the good entries of a listing, once each', () => {
    const out = mapSkills({ id: 'u', prefix: '' }, [entry('a'), { bad: true }, entry('b'), entry('a')]);
    expect(out.map((s) => s.uri)).toEqual(['skill://u/a/SKILL.md', 'skill://u/b/SKILL.md']);
  });
});

describe("an upstream's mount", () => {
  it('is its prefix, else its id', () => {
    expect(mountOf({ id: 'github', prefix: 'gh' })).toBe('gh');
    expect(mountOf({ id: 'github', prefix: '' })).toBe('github');
  });
});

describe("the writer's next skills state", () => {
  const listed = mapSkills({ id: 'u', prefix: 'u' }, [entry('a')]);
  it('a fresh listing replaces the last; a change is a list change, the same listing is not', () => {
    expect(nextSkills(undefined, { skills: listed })).toEqual({ state: { skills: listed }, changed: true });
    expect(nextSkills({ skills: listed }, { skills: structuredClone(listed) }).changed).toBe(false);
    const other: UpstreamSkill[] = [{ ...listed[0]!, frontmatter: { name: 'a', description: 'new' } }];
    expect(nextSkills({ skills: listed }, { skills: other }).changed).toBe(true);
  });
  it('a failure keeps the last good listing, marked; an upstream that stops declaring skills has none', () => {
    expect(nextSkills({ skills: listed }, { skillsError: 'timeout: slow' })).toEqual({
      state: { skills: listed, skillsError: 'timeout: slow' },
      changed: false,
    });
    expect(nextSkills({ skills: listed }, {})).toEqual({ state: {}, changed: true });
    expect(nextSkills(undefined, {})).toEqual({ state: {}, changed: false });
  });
  it('a report that never asked (its handshake failed, its breaker open) keeps the last good listing, marked', () => {
    expect(nextSkills({ skills: listed }, { error: 'HTTP 502' })).toEqual({
      state: { skills: listed, skillsError: 'HTTP 502' },
      changed: false,
    });
    expect(nextSkills({ skillsError: 'timeout: slow' }, { error: 'HTTP 502' })).toEqual({
      state: { skillsError: 'HTTP 502' },
      changed: false,
    });
    expect(nextSkills(undefined, { error: 'HTTP 502' })).toEqual({ state: {}, changed: false });
    expect(nextSkills({}, { error: 'HTTP 502' })).toEqual({ state: {}, changed: false });
  });
});

const FILES = () => ({
  'review/SKILL.md': skillMd('review', 'Reviews code'),
  'review/references/GUIDE.md': '# Guide\n',
});

describe('against the SDK Skills extension', () => {
  for (const legacy of [false, true]) {
    const era = legacy ? 'legacy' : 'modern';
    it(`lists skills beside prompts under the mount, digests as the files (${era})`, async () => {
      const files = FILES();
      const up = await started(skillsServer(files, { legacy, prompts: ['hello'] }));
      const u = config(up.url, 'acme', 'ac');
      const c = client(u);
      const got = await listUpstream(c, u);
      expect(c.era).toBe(legacy ? 'legacy' : 'modern');
      expect(got.listing?.prompts.map((p) => p.name)).toEqual(['hello']);
      expect(got.skills.skills).toEqual([
        {
          uri: 'skill://ac/review/SKILL.md',
          frontmatter: { name: 'review', description: 'Reviews code' },
          resources: [
            { uri: 'skill://ac/review/SKILL.md', digest: digest(files['review/SKILL.md']), size: 57 },
            { uri: 'skill://ac/review/references/GUIDE.md', digest: digest('# Guide\n'), size: 8 },
          ],
          origin: { upstream: 'acme', uri: 'skill://review/SKILL.md' },
        },
      ]);
      // resources/read of the upstream's own URI (modern: with Mcp-Name = params.uri, which the SDK checks).
      const read = await c.request('resources/read', { uri: 'skill://review/references/GUIDE.md' });
      expect(read.contents).toEqual([
        expect.objectContaining({ uri: 'skill://review/references/GUIDE.md', text: '# Guide\n' }),
      ]);
      await c.close();
    });

    it(`a skills failure keeps the prompts, and a change is heard as resources/list_changed (${era})`, async () => {
      const files = FILES();
      const up = await started(skillsServer(files, { legacy, prompts: ['hello'] }));
      const u = config(up.url);
      const c = client(u);
      up.setSkillsFailing(true);
      const failed = await listUpstream(c, u);
      expect(failed.listing?.prompts).toHaveLength(1);
      expect(failed.skills).toEqual({ skillsError: expect.stringMatching(/^rpc_error: skills are broken today/) });
      up.setSkillsFailing(false);
      const ctl = new AbortController();
      let heard!: () => void;
      const changed = new Promise<void>((r) => (heard = r));
      const following = c.listen(() => heard(), ctl.signal);
      // The stream is open once the server has a subscriber; reload until the change is heard (bounded).
      files['review/SKILL.md'] = skillMd('review', 'Reviews code, better');
      let ok = false;
      for (let i = 0; i < 50 && !ok; i++) {
        await up.reload();
        ok = await Promise.race([
          changed.then(() => true),
          new Promise<boolean>((r) => setTimeout(() => r(false), 100)),
        ]);
      }
      expect(ok).toBe(true);
      ctl.abort();
      await following;
      const again = await listUpstream(c, u);
      expect(again.skills.skills?.[0]?.frontmatter.description).toBe('Reviews code, better');
      await c.close();
    });
  }

  it('an upstream with skills and no prompts is not asked for prompts', async () => {
    const up = await started(skillsServer(FILES()));
    const u = config(up.url);
    const c = client(u);
    const got = await listUpstream(c, u);
    expect(got).toMatchObject({
      listing: { prompts: [] },
      skills: { skills: [expect.objectContaining({ uri: 'skill://up/review/SKILL.md' })] },
    });
    expect(got.error).toBeUndefined();
    await c.close();
  });
});
