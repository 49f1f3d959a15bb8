/**
 * Who owns a name an alias publishes (access.ts): the listing (sanitize.ts), a get or completion
 * routed by the listing's origin, and one routed by the name alone must all pick the same prompt.
 */
import { describe, expect, it } from 'vitest';
import { publishedName, servedOriginal } from '../../src/catalog/upstreams/access.js';
import { parseUpstreams, type ParseOptions } from '../../src/catalog/upstreams/parse.js';
import { sanitizeListing } from '../../src/catalog/upstreams/sanitize.js';
import { ownSecretNames } from '../../src/lib/own-secrets.js';

const opts: ParseOptions = { separator: '.', secrets: {}, ownSecrets: ownSecretNames({}), allowHttpLoopback: false };
const one = (entry: Record<string, unknown>) =>
  parseUpstreams(JSON.stringify([{ id: 'gh', url: 'https://mcp.example.com/mcp', ...entry }]), opts)[0]!;
const named = (u: ReturnType<typeof one>, listed: string[]) =>
  sanitizeListing(
    u,
    '.',
    listed.map((name) => ({ name })),
  ).map((p) => [p.name, p.origin.name]);

describe('an alias onto a name taken twice', () => {
  it("goes to the configuration's first alias, whatever the listing's order or the catalog's guess", () => {
    const u = one({ aliases: { first: 'both', later: 'both' } });
    expect(named(u, ['later', 'first'])).toEqual([['gh.both', 'first']]);
    expect(named(u, ['first', 'later'])).toEqual([['gh.both', 'first']]);
    // Routed by a listing made under another order, by the listing, or by the name alone.
    for (const guess of ['later', 'first', 'both']) expect(servedOriginal(u, '.', 'gh.both', guess)).toBe('first');
    // A denied alias owns nothing: the next one takes the name.
    const denied = one({ aliases: { first: 'both', later: 'both' }, deny: ['first'] });
    expect(named(denied, ['later', 'first'])).toEqual([['gh.both', 'later']]);
    expect(servedOriginal(denied, '.', 'gh.both', 'both')).toBe('later');
  });

  it('lists a name only where a get of it reaches the listed prompt', () => {
    const u = one({ aliases: { a: 'b', b: 'c', first: 'both', later: 'both', x: 'keep' } });
    const listed = ['a', 'b', 'c', 'later', 'first', 'keep', 'x', 'keep'];
    const prompts = sanitizeListing(
      u,
      '.',
      listed.map((name) => ({ name })),
    );
    for (const p of prompts) expect(servedOriginal(u, '.', p.name, p.origin.name), p.name).toBe(p.origin.name);
    // Every name that serves a listed prompt is listed, once.
    const names = prompts.map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    for (const original of new Set(listed)) {
      const name = publishedName(u, '.', original);
      if (servedOriginal(u, '.', name, original) === original) expect(names, original).toContain(name);
    }
  });
});
