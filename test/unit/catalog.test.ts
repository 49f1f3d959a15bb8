/**
 * The compiled catalog: merged order, routing by name, and LOCAL_PREFIX.
 */
import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/catalog/catalog.js';
import type { CatalogSnapshot, UpstreamState } from '../../src/catalog/types.js';
import { collisions, collisionsSeen } from '../../src/catalog/collisions.js';
import { describeTool } from '../../src/catalog/tools.js';
import { featuresOf } from '../../src/lib/versions.js';

const local = (name: string) => ({
  name,
  messages: [{ role: 'user' as const, content: { type: 'text' as const, text: name } }],
});
const upstream: UpstreamState = {
  id: 'gh',
  prefix: 'gh',
  prompts: [
    { name: 'gh.review', origin: { upstream: 'gh', name: 'review' } },
    { name: 'gh.zzz-1234', origin: { upstream: 'gh', name: 'a very long original name' } },
  ],
  digest: 'x',
  ok: true,
  lastSuccess: null,
  lastError: null,
};
const snap = (extra: Partial<CatalogSnapshot> = {}): CatalogSnapshot => ({
  generation: 1,
  updatedAt: '',
  prompts: [local('zeta'), local('alpha')],
  upstreams: [upstream],
  ...extra,
});

describe('Catalog', () => {
  it('lists local and upstream prompts in one name order', () => {
    expect(new Catalog(snap()).names()).toEqual(['alpha', 'gh.review', 'gh.zzz-1234', 'zeta']);
  });
  it('routes listed, hashed and unlisted-but-prefixed names to their upstream', () => {
    const c = new Catalog(snap());
    expect(c.route('alpha', '.')).toEqual({ kind: 'local' });
    expect(c.route('gh.review', '.')).toEqual({ kind: 'remote', origin: { upstream: 'gh', name: 'review' } });
    expect(c.route('gh.zzz-1234', '.')).toEqual({
      kind: 'remote',
      origin: { upstream: 'gh', name: 'a very long original name' },
    });
    expect(c.route('gh.not_listed_yet', '.')).toEqual({
      kind: 'remote',
      origin: { upstream: 'gh', name: 'not_listed_yet' },
    });
    expect(c.route('nope.x', '.')).toEqual({ kind: 'local' });
  });
  it('a local prompt keeps a name an upstream also uses', () => {
    const c = new Catalog(snap({ prompts: [local('gh.review')] }));
    expect(c.names()).toEqual(['gh.review', 'gh.zzz-1234']);
    expect(c.route('gh.review', '.')).toEqual({ kind: 'local' });
  });
  it('LOCAL_PREFIX publishes local prompts under a prefix, and serves them by that name', async () => {
    const c = new Catalog(snap({ localPrefix: 'team', separator: '.' }));
    expect(c.names()).toEqual(['gh.review', 'gh.zzz-1234', 'team.alpha', 'team.zeta']);
    const page = JSON.parse(await c.listPage('2025-11-25', undefined, 50, 's'));
    expect(page.prompts.map((p: { name: string }) => p.name)).toContain('team.alpha');
    expect(c.get('team.alpha', {}, '2025-11-25').messages[0]!.content).toEqual({ type: 'text', text: 'alpha' });
    expect(() => c.get('alpha', {}, '2025-11-25')).toThrow(/Unknown prompt/);
  });
});

describe('an upstream mounted without a prefix', () => {
  const bare = (id: string, names: string[]): UpstreamState => ({
    id,
    prefix: '',
    prompts: names.map((n) => ({ name: n, origin: { upstream: id, name: n } })),
    digest: 'x',
    ok: true,
    lastSuccess: null,
    lastError: null,
  });
  it('publishes its names as they are and routes them by its listing; a local prompt wins a clash, then the first upstream', () => {
    const c = new Catalog(
      snap({
        prompts: [local('shared')],
        upstreams: [bare('old', ['shared', 'legacy_one', 'both']), bare('older', ['both', 'only_older']), upstream],
      }),
    );
    expect(c.names()).toEqual(['both', 'gh.review', 'gh.zzz-1234', 'legacy_one', 'only_older', 'shared']);
    expect(c.route('shared', '.')).toEqual({ kind: 'local' });
    expect(c.route('legacy_one', '.')).toEqual({ kind: 'remote', origin: { upstream: 'old', name: 'legacy_one' } });
    expect(c.route('both', '.')).toEqual({ kind: 'remote', origin: { upstream: 'old', name: 'both' } });
    expect(c.route('only_older', '.')).toEqual({ kind: 'remote', origin: { upstream: 'older', name: 'only_older' } });
    // An unlisted name has no prefix to route by: it stays local (and is unknown there).
    expect(c.route('not_listed', '.')).toEqual({ kind: 'local' });
    expect([...c.upstreamIds()].sort()).toEqual(['gh', 'old', 'older']);
    expect(
      collisions({ prompts: [local('shared')], upstreams: [bare('old', ['shared', 'both']), bare('older', ['both'])] }),
    ).toEqual([
      { name: 'shared', upstream: 'old', winner: 'local' },
      { name: 'both', upstream: 'older', winner: 'old' },
    ]);
  });
});

describe('collisions as each caller meets them', () => {
  it('are clashes with the owner the caller is served, among the owners it may see', () => {
    const up = (id: string, groups?: string[]): UpstreamState => ({
      id,
      prefix: '',
      prompts: [{ name: 'n', origin: { upstream: id, name: 'n' } }],
      ...(groups && { groups }),
      digest: id,
      ok: true,
      lastSuccess: null,
      lastError: null,
    });
    const snap = {
      prompts: [
        {
          name: 'n',
          groups: ['g'],
          messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'x' } }],
        },
      ],
      upstreams: [up('u1'), up('u2'), up('hid', ['h'])],
    };
    const show = (cs: { name: string; upstream: string; winner: string }[]) =>
      cs.map((c) => `${c.upstream}<${c.winner}`);
    // A caller outside g is served u1's n; u2's is the clash it meets. hid's it may not see.
    expect(show(collisionsSeen(snap, (groups) => groups === undefined))).toEqual(['u2<u1']);
    // One in g is served the local n.
    expect(show(collisionsSeen(snap, (groups) => groups === undefined || groups.includes('g')))).toEqual([
      'u1<local',
      'u2<local',
    ]);
    expect(show(collisions(snap))).toEqual(['u1<local', 'u2<local', 'hid<local']);
  });
});

describe('the tools mirror’s input schema', () => {
  it('has an argument named like an Object.prototype member as a property like any other', () => {
    const c = new Catalog({
      generation: 1,
      updatedAt: '',
      prompts: [
        {
          name: 'p',
          arguments: [{ name: '__proto__', required: true }, { name: 'constructor' }],
          messages: [{ role: 'user', content: { type: 'text', text: '{{__proto__}}' } }],
        },
      ],
    });
    const tool = JSON.parse(JSON.stringify(describeTool(c.entries[0]!, featuresOf('2025-11-25')))) as {
      inputSchema: { properties: Record<string, unknown>; required: string[] };
    };
    expect(Object.keys(tool.inputSchema.properties)).toEqual(['__proto__', 'constructor']);
    expect(tool.inputSchema.required).toEqual(['__proto__']);
  });
});
