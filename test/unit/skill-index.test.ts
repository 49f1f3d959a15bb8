/**
 * The skill index of one generation (catalog/skills/index.ts): URIs of local skills (with and without a
 * local prefix), upstream skills under their mounts, folder ownership (local first, then upstreams in
 * order), and where each file URI routes: a local file, or its upstream with the upstream's own URI,
 * including the unlisted files of a `dynamic` skill.
 */
import { describe, expect, it } from 'vitest';
import { findSkillFile, indexSkills } from '../../src/catalog/skills/index.js';
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
const all = () => true;

describe('skill index', () => {
  it('local URIs, with LOCAL_PREFIX and percent-encoded path segments', () => {
    const i = indexSkills([local('b', ['a b/c#.md']), local('a')], [], 'team', groupsOf);
    expect(i.sorted.map((s) => s.uri)).toEqual(['skill://team/a/SKILL.md', 'skill://team/b/SKILL.md']);
    expect(i.sorted[1]!.resources).toEqual([
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
    expect(findSkillFile(i, 'skill://up/other/SKILL.md', all)).toBeUndefined();
    expect(findSkillFile(i, 'https://up/pdf/SKILL.md', all)).toBeUndefined();
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
    expect(i.sorted.map((s) => s.uri)).toEqual(['skill://pdf/SKILL.md', 'skill://up/a/SKILL.md']);
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
});
