/**
 * Folder ownership per view (catalog/skills/owners.ts, docs/skills-serving.md "URIs") through the real
 * Worker and KV: a local skill only some callers may see shares its URI with an upstream's skill, and
 * another one's folder holds an upstream's `dynamic` skill. A caller who sees the local skill is listed
 * and served it (never the upstream's files); any other caller is listed and served the upstream's,
 * and reads none of the local skill's files, each answered exactly as a URI that does not exist.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { UpstreamSkill, UpstreamState } from '../../src/catalog/types.js';
import type { Principal } from '../../src/lib/scope.js';
import { modernAs, modernScoped, principal } from '../helpers/principals.js';
import { seedSkills, storeSkill } from '../helpers/skills.js';

const D = `sha256:${'b'.repeat(64)}`;
const fromUpstream = (path: string, files: string[] | 'dynamic'): UpstreamSkill => ({
  uri: `skill://team/${path}/SKILL.md`,
  frontmatter: { name: path.split('/').pop()!, description: `${path} upstream` },
  resources:
    files === 'dynamic'
      ? 'dynamic'
      : ['SKILL.md', ...files].map((f) => ({ uri: `skill://team/${path}/${f}`, digest: D, size: 5 })),
  origin: { upstream: 'team', uri: `skill://${path}/SKILL.md` },
});
// Mounted at its id (no prefix), which is the LOCAL_PREFIX: its review is at the local review's URI.
const upstream: UpstreamState = {
  id: 'team',
  prefix: '',
  prompts: [],
  skills: [fromUpstream('review', ['GUIDE.md']), fromUpstream('pdf/forms', 'dynamic')],
  digest: 'team',
  ok: true,
  lastSuccess: null,
  lastError: null,
};

const alice = principal('oauth:idp#alice', ['eng']);
const admin = principal('admin', [], { admin: true, method: 'admin' });
const bob = principal('oauth:idp#bob', ['ops']);

beforeAll(async () => {
  await seedSkills(
    [
      await storeSkill('review', 'Local review', [{ path: 'notes.md', content: 'eng notes\n' }], ['eng']),
      await storeSkill('pdf', 'Local pdf', [], ['eng']),
    ],
    [upstream],
    { localPrefix: 'team' },
  );
});

/** Every entry of a list, by URI, with where it comes from (`local` or the upstream's id). */
async function listed(p: Principal | undefined, method: 'skills/list' | 'resources/list') {
  const out: Record<string, string> = {};
  let cursor: string | undefined;
  do {
    const r = await modernAs(p, method, cursor ? { cursor } : {});
    for (const e of r.result[method === 'skills/list' ? 'skills' : 'resources'])
      out[e.uri] = e._meta?.['dev.promptgate/origin']?.upstream ?? 'local';
    cursor = r.result.nextCursor;
  } while (cursor);
  return out;
}

/** What resources/read answers (the text or the error), and the upstream it went to, if any. */
async function read(p: Principal | undefined, uri: string) {
  const { body, scope } = await modernScoped(p, 'resources/read', { uri });
  const answer = body.result ? { text: body.result.contents[0].text } : { error: body.error };
  return scope.record.upstream === undefined ? answer : { ...answer, upstream: scope.record.upstream };
}

const missing = async (p: Principal | undefined, uri: string) => {
  const other = uri.replace(/\/(review|pdf)\//, '/nothing/');
  const e = (await read(p, other)).error;
  return { error: { ...e, message: e.message.replace(other, uri), data: { uri } } };
};

describe('a folder a hidden local skill shares with an upstream skill', () => {
  it.each([
    ['a member of the local skill’s group', alice],
    ['an admin', admin],
  ])('%s is listed and served the local skill, none of the upstream’s', async (_, p) => {
    for (const m of ['skills/list', 'resources/list'] as const)
      expect(await listed(p, m)).toEqual({
        'skill://team/pdf/SKILL.md': 'local',
        'skill://team/review/SKILL.md': 'local',
      });
    const got = await modernAs(p, 'skills/get', { uri: 'skill://team/review/SKILL.md' });
    expect(got.result.skill.frontmatter.description).toBe('Local review');
    expect(await read(p, 'skill://team/review/notes.md')).toEqual({ text: 'eng notes\n' });
    for (const uri of [
      'skill://team/review/GUIDE.md',
      'skill://team/pdf/forms/SKILL.md',
      'skill://team/pdf/forms/a.md',
    ])
      expect(await read(p, uri), uri).toEqual(await missing(p, uri));
  });

  it.each([
    ['a caller in another group', bob],
    ['an anonymous caller', undefined],
  ])('%s is listed and routed to the upstream’s skills, and reads no local file', async (_, p) => {
    for (const m of ['skills/list', 'resources/list'] as const)
      expect(await listed(p, m)).toEqual({
        'skill://team/pdf/forms/SKILL.md': 'team',
        'skill://team/review/SKILL.md': 'team',
      });
    const got = await modernAs(p, 'skills/get', { uri: 'skill://team/review/SKILL.md' });
    expect(got.result.skill.frontmatter.description).toBe('review upstream');
    expect((await modernAs(p, 'skills/get', { uri: 'skill://team/pdf/SKILL.md' })).error).toMatchObject({
      code: -32602,
    });
    // The local skills' own files are not found; the upstream's go to the upstream (not configured here), never to KV.
    for (const uri of ['skill://team/review/notes.md', 'skill://team/pdf/SKILL.md'])
      expect(await read(p, uri), uri).toEqual(await missing(p, uri));
    for (const uri of ['skill://team/review/SKILL.md', 'skill://team/review/GUIDE.md', 'skill://team/pdf/forms/a.md'])
      expect(await read(p, uri), uri).toMatchObject({ upstream: 'team', error: { data: { uri } } });
  });
});
