/**
 * Per-team visibility in the compiled catalog (catalog/view.ts, view-lookup.ts, views.ts): who
 * sees which prompts, view keys shared by principals who see the same, a prompt outside the view
 * answered exactly like an unknown one (get, complete, describe, route, including an upstream's
 * unlisted names), cursors bound to their view, and `private` hints for any catalog that uses groups.
 */
import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/catalog/catalog.js';
import { readCursor } from '../../src/catalog/cursor.js';
import { encodeBase64Url } from '../../src/lib/base64url.js';
import { mac } from '../../src/lib/hmac.js';
import type { CatalogSnapshot, PromptRecord, UpstreamState } from '../../src/catalog/types.js';
import { computeViewKey } from '../../src/catalog/views.js';
import { principal } from '../helpers/principals.js';

const V = '2025-11-25';
const prompt = (name: string, groups?: string[]): PromptRecord => ({
  name,
  ...(groups && { groups }),
  arguments: [{ name: 'x', values: ['one', 'two'] }],
  messages: [{ role: 'user', content: { type: 'text', text: `${name} {{x}}` } }],
});
const upstream = (id: string, groups?: string[]): UpstreamState => ({
  id,
  prefix: id,
  prompts: [{ name: `${id}.review`, origin: { upstream: id, name: 'review' }, ...(groups && { groups }) }],
  ...(groups && { groups }),
  digest: id,
  ok: true,
  lastSuccess: null,
  lastError: null,
});
const snap = (prompts: PromptRecord[], upstreams: UpstreamState[] = []): CatalogSnapshot => ({
  generation: 7,
  updatedAt: '',
  prompts,
  upstreams,
});
const grouped = () =>
  new Catalog(
    snap(
      [prompt('open'), prompt('eng-only', ['eng']), prompt('ops-or-eng', ['ops', 'eng']), prompt('fin', ['finance'])],
      [upstream('gh', ['eng']), upstream('pub')],
    ),
  );

const alice = principal('oauth:idp#alice', ['eng', 'unrelated']);
const bob = principal('oauth:idp#bob', ['ops']);
const carol = principal('key:carol', ['unrelated', 'eng', 'eng']);
const admin = principal('admin', [], { admin: true });
const nobody = principal('oauth:idp#nobody', []);

/** What a call throws, as the client would see it (code, message, data). */
function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return { ...(e as object), message: (e as Error).message, name: (e as Error).name };
  }
  throw new Error('did not throw');
}

type Page = { prompts: { name: string }[]; nextCursor?: string };
const parse = (json: string) => JSON.parse(json) as Page;

describe('views', () => {
  it('a prompt without groups is seen by everyone; one with groups by its members and admins', () => {
    const c = grouped();
    expect(c.viewFor(alice).names()).toEqual(['eng-only', 'gh.review', 'open', 'ops-or-eng', 'pub.review']);
    expect(c.viewFor(bob).names()).toEqual(['open', 'ops-or-eng', 'pub.review']);
    expect(c.viewFor(nobody).names()).toEqual(['open', 'pub.review']);
    expect(c.viewFor(undefined).names()).toEqual(['open', 'pub.review']);
    expect(c.viewFor(admin).names()).toEqual(c.names());
    expect(c.viewFor(admin).names()).toHaveLength(6);
  });

  it('principals with the same effective groups share one view object (and its pages)', () => {
    const c = grouped();
    expect(computeViewKey(c.compiled.groups, alice)).toBe('eng');
    expect(c.viewFor(carol)).toBe(c.viewFor(alice));
    expect(c.viewFor(nobody)).toBe(c.viewFor(undefined));
    expect(c.viewFor(bob)).not.toBe(c.viewFor(alice));
    expect(c.viewFor(admin)).toBe(c);
    expect(c.viewFor(principal('admin2', ['ops'], { admin: true }))).toBe(c);
    // The memo follows the catalog's groups: a new generation with other groups gives other keys.
    const next = new Catalog(snap([prompt('x', ['unrelated'])]));
    expect(next.viewFor(alice).key).toBe('unrelated');
    expect(c.viewFor(alice).key).toBe('eng');
  });

  it('a catalog that names no group is everyone’s view, with its hints unchanged', () => {
    const c = new Catalog(snap([prompt('a'), prompt('b')], [upstream('pub')]));
    for (const p of [alice, bob, admin, undefined]) expect(c.viewFor(p)).toBe(c);
    expect(c.key).toBe('');
    expect(c.cacheHints(60_000)).toEqual({ ttlMs: 60_000, cacheScope: 'public' });
  });

  it('any group makes every view’s hints private, with the same TTL', () => {
    const c = grouped();
    for (const p of [alice, admin, undefined])
      expect(c.viewFor(p).cacheHints(60_000)).toEqual({ ttlMs: 60_000, cacheScope: 'private' });
    expect(c.viewFor(alice).contentHints(60_000)).toEqual({ ttlMs: 60_000, cacheScope: 'public' });
    expect(c.viewFor(alice).cacheHints(0)).toEqual({ ttlMs: 0, cacheScope: 'private' });
  });

  it('a prompt outside the view is answered exactly like an unknown one', () => {
    const c = grouped();
    const view = c.viewFor(bob);
    expect(view.has('eng-only')).toBe(false);
    expect(view.describe('eng-only', V)).toBeUndefined();
    expect(view.describe('gh.review', V)).toBeUndefined();
    const hidden = thrown(() => view.get('fin', {}, V));
    const unknown = thrown(() => view.get('fiN', {}, V));
    expect(hidden).toMatchObject({
      reason: 'unknown_prompt',
      message: 'Unknown prompt "fin"',
      detail: { name: 'fin' },
    });
    expect(JSON.stringify(hidden).replaceAll('fin', 'fiN')).toBe(JSON.stringify(unknown));
    const hiddenC = thrown(() => view.complete('eng-only', 'x', 'o'));
    const unknownC = thrown(() => view.complete('eng-onlx', 'x', 'o'));
    expect(JSON.stringify(hiddenC).replaceAll('eng-only', 'eng-onlx')).toBe(JSON.stringify(unknownC));
    // Members see and render it.
    expect(c.viewFor(alice).get('eng-only', { x: 'one' }, V).messages[0]!.content).toEqual({
      type: 'text',
      text: 'eng-only one',
    });
    expect(c.viewFor(alice).complete('eng-only', 'x', 'on').values).toEqual(['one']);
    expect(c.viewFor(bob).get('ops-or-eng', {}, V).messages).toHaveLength(1);
  });

  it('never routes a name outside the view upstream, listed or not', () => {
    const c = grouped();
    const view = c.viewFor(bob);
    // Listed upstream prompt of an upstream bob's groups do not include: local, hence unknown.
    expect(view.route('gh.review', '.')).toEqual({ kind: 'local' });
    // An unlisted name under that upstream's prefix: the same.
    expect(view.route('gh.anything', '.')).toEqual({ kind: 'local' });
    expect(view.route('nope.x', '.')).toEqual(view.route('gh.anything', '.'));
    expect(JSON.stringify(thrown(() => view.get('gh.anything', {}, V)))).toContain('Unknown prompt');
    // Members and ungrouped upstreams route as before.
    expect(c.viewFor(alice).route('gh.review', '.')).toEqual({
      kind: 'remote',
      origin: { upstream: 'gh', name: 'review' },
    });
    expect(c.viewFor(alice).route('gh.unlisted', '.')).toEqual({
      kind: 'remote',
      origin: { upstream: 'gh', name: 'unlisted' },
    });
    expect(view.route('pub.unlisted', '.')).toEqual({ kind: 'remote', origin: { upstream: 'pub', name: 'unlisted' } });
    expect(c.route('gh.unlisted', '.')).toMatchObject({ kind: 'remote' });
  });

  it('routes a hidden name exactly as a name nobody has, even under a prefix the view sees', () => {
    // A local prompt named like one of a visible upstream's, and a hidden upstream listing a name under it.
    const c = new Catalog(
      snap(
        [prompt('pub.secret', ['finance']), prompt('open')],
        [
          upstream('pub'),
          {
            ...upstream('hid', ['finance']),
            prefix: '',
            prompts: [{ name: 'pub.listed', origin: { upstream: 'hid', name: 'pub.listed' }, groups: ['finance'] }],
          },
        ],
      ),
    );
    const view = c.viewFor(bob);
    for (const hidden of ['pub.secret', 'pub.listed']) {
      const route = view.route(hidden, '.');
      expect(route).toEqual({ kind: 'remote', origin: { upstream: 'pub', name: hidden.slice('pub.'.length) } });
      // Just as a name nobody has under that prefix.
      expect(view.route('pub.nothere', '.')).toEqual({ kind: 'remote', origin: { upstream: 'pub', name: 'nothere' } });
    }
    // Those who may see them are served them.
    expect(c.viewFor(admin).route('pub.secret', '.')).toEqual({ kind: 'local' });
    expect(c.viewFor(admin).route('pub.listed', '.')).toEqual({
      kind: 'remote',
      origin: { upstream: 'hid', name: 'pub.listed' },
    });
  });

  it('serves a name’s first owner the view sees: a hidden one hides nothing behind it', () => {
    // `dup` is a local prompt for finance, listed again by a finance-only upstream, then by a public one.
    const listing = (id: string, groups?: string[]): UpstreamState => ({
      ...upstream(id, groups),
      prefix: '',
      prompts: [{ name: 'dup', origin: { upstream: id, name: 'dup' } }],
    });
    const c = new Catalog(
      snap([prompt('dup', ['finance']), prompt('open')], [listing('fx', ['finance']), listing('px')]),
    );
    const outsider = c.viewFor(bob);
    // Exactly what bob would be served if the finance prompt and upstream did not exist.
    const without = new Catalog(snap([prompt('open')], [listing('px')]));
    expect(outsider.names()).toEqual(['dup', 'open']);
    expect(outsider.names()).toEqual(without.names());
    expect(outsider.has('dup')).toBe(true);
    expect(outsider.route('dup', '.')).toEqual({ kind: 'remote', origin: { upstream: 'px', name: 'dup' } });
    expect(outsider.describe('dup', V)).toEqual(without.describe('dup', V));
    expect(outsider.served('dup')).toMatchObject({ remote: { prompt: { origin: { upstream: 'px' } } } });
    expect(JSON.stringify(thrown(() => outsider.get('dup', {}, V)))).toContain('Unknown prompt');
    // Whoever sees the first owner is served it, once; the admin's view is the first owner of each name.
    const member = principal('oauth:idp#fin', ['finance']);
    for (const v of [c.viewFor(member), c.viewFor(admin)]) {
      expect(v.names()).toEqual(['dup', 'open']);
      expect(v.route('dup', '.')).toEqual({ kind: 'local' });
      expect(v.get('dup', { x: 'one' }, V).messages[0]!.content).toEqual({ type: 'text', text: 'dup one' });
    }
    expect(c.names()).toEqual(['dup', 'open']);
    // Use is counted per owner served: the outsider's calls are the upstream's, and named so.
    expect(outsider.usageKey('dup')).toBe('dup@px');
    expect(c.viewFor(member).usageKey('dup')).toBe('dup');
    expect(c.usageKey('dup')).toBe('dup');
    expect(outsider.usageKey('open')).toBe('open');
    // A view that sees only the second owner is served the second.
    const upstreamOnly = new Catalog(snap([prompt('dup', ['eng'])], [listing('fx', ['finance']), listing('px')]));
    expect(upstreamOnly.viewFor(member).route('dup', '.')).toEqual({
      kind: 'remote',
      origin: { upstream: 'fx', name: 'dup' },
    });
    expect(upstreamOnly.viewFor(member).usageKey('dup')).toBe('dup@fx');
  });

  it('keeps a cursor good across generations that leave its list as it was, and only those', async () => {
    const at = (generation: number, prompts: PromptRecord[], upstreams: UpstreamState[] = [upstream('pub')]) =>
      new Catalog({ ...snap(prompts, upstreams), generation }).viewFor(bob);
    const three = [prompt('a'), prompt('b'), prompt('c')];
    const first = parse(await at(7, three).listPage(V, undefined, 2, 's'));
    expect(first.prompts.map((p: { name: string }) => p.name)).toEqual(['a', 'b']);
    // A silent generation: its upstream marked stale, a description changed; the names are the same.
    const stale = [{ ...upstream('pub'), ok: false }];
    const described = [prompt('a'), { ...prompt('b'), description: 'new words' }, prompt('c')];
    const later = parse(await at(8, described, stale).listPage(V, first.nextCursor, 2, 's'));
    expect(later.prompts.map((p: { name: string }) => p.name)).toEqual(['c', 'pub.review']);
    // An isolate a generation behind the one that minted it serves it too.
    expect(parse(await at(6, three).listPage(V, first.nextCursor, 2, 's')).prompts[0]!.name).toBe('c');
    // A list that changed (a prompt added, one removed) refuses it: an offset there could skip or repeat one.
    for (const changed of [
      [...three, prompt('aa')],
      [prompt('a'), prompt('c')],
    ])
      await expect(at(9, changed).listPage(V, first.nextCursor, 2, 's')).rejects.toMatchObject({
        reason: 'invalid_cursor',
        message: expect.stringMatching(/list changed/),
      });
  });

  it('lists each view on its own pages, and a cursor from one view is invalid in another', async () => {
    const c = grouped();
    const first = parse(await c.viewFor(alice).listPage(V, undefined, 2, 's'));
    expect(first.prompts.map((p: { name: string }) => p.name)).toEqual(['eng-only', 'gh.review']);
    const bobFirst = parse(await c.viewFor(bob).listPage(V, undefined, 2, 's'));
    expect(bobFirst.prompts.map((p: { name: string }) => p.name)).toEqual(['open', 'ops-or-eng']);
    // The same position in another view: refused, whether this isolate minted it or not.
    await expect(c.viewFor(bob).listPage(V, first.nextCursor, 2, 's')).rejects.toMatchObject({
      reason: 'invalid_cursor',
    });
    await expect(c.viewFor(admin).listPage(V, first.nextCursor, 2, 's')).rejects.toMatchObject({
      reason: 'invalid_cursor',
    });
    const second = parse(await c.viewFor(carol).listPage(V, first.nextCursor, 2, 's'));
    expect(second.prompts.map((p: { name: string }) => p.name)).toEqual(['open', 'ops-or-eng']);
    // Verified from its bytes, as another isolate would: the MAC covers the view.
    const body = `l7.2.${await mac('other-isolate-secret', 'cursor/v2', 'l7.2|eng')}`;
    const foreign = encodeBase64Url(new TextEncoder().encode(body));
    await expect(readCursor('other-isolate-secret', foreign, 'l7', 'ops')).rejects.toMatchObject({
      reason: 'invalid_cursor',
    });
    expect(await readCursor('other-isolate-secret', foreign, 'l7', 'eng')).toBe(2);
    // Listings never carry the groups.
    expect(JSON.stringify(first)).not.toContain('"groups"');
  });
});
