/**
 * The skill index of one generation (catalog/skills/index.ts) and its owners per view (owners.ts): URIs
 * of local skills (with and without a local prefix), upstream skills under their mounts, folder ownership
 * (local first, then upstreams in order, among the skills a view sees), and where each file URI routes: a
 * local file, or its upstream with the upstream's own URI, including the unlisted files of a `dynamic` skill.
 */
import { describe, expect, it } from 'vitest';
import { indexSkills, type SkillIndex } from '../../src/catalog/skills/index.js';
import { describeSkillResource } from '../../src/catalog/skills/lists.js';
import { findSkillFile as findIn, ownersFor } from '../../src/catalog/skills/owners.js';
import type { SkillRecord, UpstreamSkill, UpstreamState } from '../../src/catalog/types.js';

const D = `sha256:${'a'.repeat(64)}`;
const local = (name: string, paths: string[] = [], groups?: string[]): SkillRecord => ({
  name,
  frontmatter: { name, description: name },
  files: ['SKILL.md', ...paths].map((path) => ({ path, digest: D, size: 1 })),
  ...(groups && { groups }),
});
const remote = (uri: string, origin: string, resources: string[] | 'dynamic' = []): UpstreamSkill => ({
  uri,
  frontmatter: { name: 'x', description: 'x' },
  resources: resources === 'dynamic' ? 'dynamic' : [uri, ...resources].map((u) => ({ uri: u, digest: D, size: 1 })),
  origin: { upstream: 'up', uri: origin },
});
const state = (skills: UpstreamSkill[], groups?: string[]): UpstreamState => ({
  id: 'up',
  prefix: 'up',
  prompts: [],
  skills,
  digest: '',
  ok: true,
  lastSuccess: null,
  lastError: null,
  ...(groups && { groups }),
});
const groupsOf = (g: readonly string[] | undefined) => (g?.length ? g : undefined);
type Sees = (g: readonly string[] | undefined) => boolean;
const all: Sees = () => true;
/** A view's sees: members of these groups. */
const member =
  (...mine: string[]): Sees =>
  (g) =>
    !g || g.some((x) => mine.includes(x));
const findSkillFile = (i: SkillIndex, uri: string, sees: Sees) => findIn(ownersFor(i, sees), uri);
const listed = (i: SkillIndex, sees: Sees = all) => ownersFor(i, sees).sorted.map((s) => s.uri);

describe('skill index', () => {
  it('local URIs, with LOCAL_PREFIX and percent-encoded path segments', () => {
    const i = indexSkills([local('b', ['a b/c#.md']), local('a')], [], 'team', groupsOf);
    expect(listed(i)).toEqual(['skill://team/a/SKILL.md', 'skill://team/b/SKILL.md']);
    expect(ownersFor(i, all).sorted[1]!.resources).toEqual([
      { uri: 'skill://team/b/SKILL.md', digest: D, size: 1 },
      { uri: 'skill://team/b/a%20b/c%23.md', digest: D, size: 1 },
    ]);
    expect(findSkillFile(i, 'skill://team/b/a%20b/c%23.md', all)).toMatchObject({
      local: { record: { path: 'a b/c#.md' } },
    });
  });

  it('upstream files route to the upstream with its own URIs; a dynamic skill routes its whole folder', () => {
    const i = indexSkills(
      [],
      [
        state([
          remote('skill://up/pdf/SKILL.md', 'skill://pdf/SKILL.md', ['skill://up/pdf/ref/A.md']),
          remote('skill://up/gen/deep/SKILL.md', 'skill://gen/deep/SKILL.md', 'dynamic'),
        ]),
      ],
      undefined,
      groupsOf,
    );
    expect(findSkillFile(i, 'skill://up/pdf/ref/A.md', all)).toMatchObject({
      origin: { upstream: 'up', uri: 'skill://pdf/ref/A.md' },
    });
    expect(findSkillFile(i, 'skill://up/pdf/SKILL.md', all)).toMatchObject({ origin: { uri: 'skill://pdf/SKILL.md' } });
    expect(findSkillFile(i, 'skill://up/gen/deep/x/y.txt', all)).toMatchObject({
      origin: { uri: 'skill://gen/deep/x/y.txt' },
    });
    // A listed skill answers only for what it lists (its manifest is complete); no walk escapes a folder.
    expect(findSkillFile(i, 'skill://up/pdf/ref/B.md', all)).toBeUndefined();
    expect(findSkillFile(i, 'skill://up/gen/deep/../../other/SKILL.md', all)).toBeUndefined();
    // Dot segments and separators in percent-encoding, which an upstream may decode before it
    // resolves the path, and backslashes: never routed out of the folder.
    for (const escape of ['%2e%2e/%2e%2e', '%2E%2E/..', '.%2e/x', 'a%2f..%2f..', 'a%2F..%2F..', '..%5c..', 'a\\..\\..'])
      expect(findSkillFile(i, `skill://up/gen/deep/${escape}/other/SKILL.md`, all), escape).toBeUndefined();
    // A URI longer than any the gateway serves is not looked up, folder by folder, at all.
    expect(findSkillFile(i, `skill://up/gen/deep/${'a/'.repeat(2_000)}x`, all)).toBeUndefined();
    expect(findSkillFile(i, 'skill://up/other/SKILL.md', all)).toBeUndefined();
    expect(findSkillFile(i, 'https://up/pdf/SKILL.md', all)).toBeUndefined();
  });

  it("a dynamic skill's folder routes only URIs its upstream's listing could hold", () => {
    const i = indexSkills(
      [],
      [state([remote('skill://up/gen/SKILL.md', 'skill://gen/SKILL.md', 'dynamic')])],
      undefined,
      groupsOf,
    );
    expect(findSkillFile(i, 'skill://up/gen/a%20b/c.md', all)).toMatchObject({
      origin: { uri: 'skill://gen/a%20b/c.md' },
    });
    const refused = [
      '/etc/passwd', // an empty segment
      'a\u0000b',
      ' a',
      'a\tb',
      'a%00b',
      'a%0Ab',
      'a%zz',
      'x/%2e',
      'x?y=../../z',
      `${'a'.repeat(1_100)}.md`, // longer than a listing may name
    ];
    for (const tail of refused) expect(findSkillFile(i, `skill://up/gen/${tail}`, all), tail).toBeUndefined();
  });

  it('a folder has one owner: local skills first, then upstreams in order; malformed ones are skipped', () => {
    const i = indexSkills(
      [local('pdf', ['scripts/fill.py'])],
      [
        state([
          remote('skill://pdf/scripts/SKILL.md', 'skill://scripts/SKILL.md', ['skill://pdf/scripts/fill.py']),
          remote('skill://up/a/SKILL.md', 'skill://a/SKILL.md'),
          remote('skill://up/a/b/SKILL.md', 'skill://a/b/SKILL.md'),
          remote('skill://up/c/README.md', 'skill://c/README.md'),
          remote('skill://up/d/SKILL.md', 'skill://d/SKILL.md', ['skill://up/elsewhere.md']),
        ]),
      ],
      undefined,
      groupsOf,
    );
    expect(listed(i)).toEqual(['skill://pdf/SKILL.md', 'skill://up/a/SKILL.md']);
    expect(findSkillFile(i, 'skill://pdf/scripts/fill.py', all)).toMatchObject({
      local: { record: { path: 'scripts/fill.py' } },
    });
  });

  it("visibility: local groups, an upstream's groups; what a view may not see is not found", () => {
    const i = indexSkills(
      [local('eng', ['n.md'], ['eng'])],
      [state([remote('skill://up/o/SKILL.md', 'skill://o/SKILL.md')], ['ops'])],
      undefined,
      groupsOf,
    );
    expect([...i.groups].sort()).toEqual(['eng', 'ops']);
    const ops = (g: readonly string[] | undefined) => !g || g.includes('ops');
    expect(findSkillFile(i, 'skill://eng/n.md', ops)).toBeUndefined();
    expect(findSkillFile(i, 'skill://up/o/SKILL.md', ops)).toBeDefined();
  });

  it('a skill a view may not see claims no folder: that view lists and reads the next owner it sees', () => {
    const i = indexSkills(
      [local('review', ['notes.md'], ['eng']), local('pdf', [], ['eng'])],
      [
        state([
          // The same URI as the local review, and a folder inside the local pdf's.
          remote('skill://team/review/SKILL.md', 'skill://review/SKILL.md', ['skill://team/review/GUIDE.md']),
          remote('skill://team/pdf/forms/SKILL.md', 'skill://pdf/forms/SKILL.md', 'dynamic'),
        ]),
      ],
      'team',
      groupsOf,
    );
    for (const sees of [all, member('eng')]) {
      expect(listed(i, sees)).toEqual(['skill://team/pdf/SKILL.md', 'skill://team/review/SKILL.md']);
      expect(ownersFor(i, sees).byUri.get('skill://team/review/SKILL.md')).toHaveProperty('local');
      expect(findSkillFile(i, 'skill://team/review/SKILL.md', sees)).toHaveProperty('local');
      expect(findSkillFile(i, 'skill://team/review/notes.md', sees)).toHaveProperty('local');
      expect(findSkillFile(i, 'skill://team/review/GUIDE.md', sees)).toBeUndefined();
      expect(findSkillFile(i, 'skill://team/pdf/forms/SKILL.md', sees)).toBeUndefined();
      expect(findSkillFile(i, 'skill://team/pdf/forms/a.txt', sees)).toBeUndefined();
    }
    for (const sees of [member('ops'), member()]) {
      expect(listed(i, sees)).toEqual(['skill://team/pdf/forms/SKILL.md', 'skill://team/review/SKILL.md']);
      expect(ownersFor(i, sees).byUri.get('skill://team/review/SKILL.md')).toHaveProperty('remote');
      expect(findSkillFile(i, 'skill://team/review/SKILL.md', sees)).toMatchObject({
        origin: { upstream: 'up', uri: 'skill://review/SKILL.md' },
      });
      expect(findSkillFile(i, 'skill://team/review/GUIDE.md', sees)).toMatchObject({
        origin: { uri: 'skill://review/GUIDE.md' },
      });
      expect(findSkillFile(i, 'skill://team/pdf/forms/a.txt', sees)).toMatchObject({
        origin: { uri: 'skill://pdf/forms/a.txt' },
      });
      // Nothing of the hidden local skills: not its files, not its SKILL.md.
      expect(findSkillFile(i, 'skill://team/review/notes.md', sees)).toBeUndefined();
      expect(findSkillFile(i, 'skill://team/pdf/SKILL.md', sees)).toBeUndefined();
    }
  });

  it('a stored record whose front matter clients refuse is neither listed nor read; the rest are', () => {
    const bad = {
      ...local('old', ['ref.md']),
      frontmatter: { name: 'old', description: 'd', metadata: { version: 1 } },
    };
    const renamed = { ...local('moved'), frontmatter: { name: 'elsewhere', description: 'd' } };
    const i = indexSkills([bad, local('fine'), renamed], [], undefined, groupsOf);
    expect(listed(i)).toEqual(['skill://fine/SKILL.md']);
    expect(findSkillFile(i, 'skill://old/SKILL.md', all)).toBeUndefined();
    expect(findSkillFile(i, 'skill://old/ref.md', all)).toBeUndefined();
    expect(findSkillFile(i, 'skill://moved/SKILL.md', all)).toBeUndefined();
    expect(findSkillFile(i, 'skill://fine/SKILL.md', all)).toBeDefined();
  });

  it('resources/list gives a SKILL.md the media type resources/read serves it with', () => {
    const plain = local('plain');
    plain.files[0]!.mimeType = 'text/plain';
    const i = indexSkills(
      [plain, local('md')],
      [state([remote('skill://up/r/SKILL.md', 'skill://r/SKILL.md')])],
      undefined,
      groupsOf,
    );
    const features = { titles: true, icons: true, resourceLinks: true, batches: false, priming: true };
    const types = ownersFor(i, all).sorted.map((s) => [s.uri, describeSkillResource(s, features).mimeType]);
    expect(types).toEqual([
      ['skill://md/SKILL.md', 'text/markdown'],
      ['skill://plain/SKILL.md', 'text/plain'],
      ['skill://up/r/SKILL.md', 'text/markdown'],
    ]);
    expect(findSkillFile(i, 'skill://plain/SKILL.md', all)).toMatchObject({ local: { mimeType: 'text/plain' } });
  });

  it('views that see every skill share one resolution; others get their own', () => {
    const i = indexSkills([local('a'), local('b', [], ['eng'])], [], undefined, groupsOf);
    expect(ownersFor(i, all)).toBe(ownersFor(i, member('eng')));
    expect(ownersFor(i, member('ops'))).not.toBe(ownersFor(i, all));
    expect(listed(i, member('ops'))).toEqual(['skill://a/SKILL.md']);
  });
});
