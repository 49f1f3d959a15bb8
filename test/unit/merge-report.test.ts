/**
 * One upstream report merged into its stored state (catalog/upstreams/merge-report.ts): which lists
 * a report changes (announced), which reports only change the snapshot (a stale mark, new hints:
 * a new generation nobody is told about), and that a failure keeps the last good listing.
 */
import { describe, expect, it } from 'vitest';
import { mergeReport } from '../../src/catalog/upstreams/merge-report.js';
import type { ListReport } from '../../src/catalog/upstreams/report.js';
import type { UpstreamPrompt } from '../../src/catalog/types.js';

const prompt = (name: string): UpstreamPrompt => ({ name, origin: { upstream: 'up', name } });
const ok = (over: Partial<ListReport> = {}): ListReport => ({
  id: 'up',
  prefix: 'up',
  prompts: [prompt('a')],
  ...over,
});
const failed = (over: Partial<ListReport> = {}): ListReport => ({ id: 'up', prefix: 'up', error: 'HTTP 502', ...over });
const T1 = '2026-11-25T00:00:00.000Z';
const T2 = '2026-11-25T00:01:00.000Z';
/** One skill the upstream listed. */
const skills = [
  {
    uri: 'skill://up/r/SKILL.md',
    frontmatter: { name: 'r', description: 'd' },
    resources: 'dynamic' as const,
    origin: { upstream: 'up', uri: 'skill://r/SKILL.md' },
  },
];

describe('mergeReport', () => {
  it('a first listing is a prompts change', () => {
    const m = mergeReport(undefined, ok(), 'd1', T1);
    expect(m).toMatchObject({ changed: true, lists: new Set(['prompts']) });
    expect(m.state).toMatchObject({ id: 'up', ok: true, digest: 'd1', lastSuccess: T1, lastError: null });
  });

  it('the same listing again changes nothing', () => {
    const first = mergeReport(undefined, ok(), 'd1', T1).state;
    const m = mergeReport(first, ok(), 'd1', T2);
    expect(m).toMatchObject({ changed: false, flipped: false, lists: new Set() });
    expect(m.state.lastSuccess).toBe(T2);
  });

  it('a failure keeps the last good listing, marked stale: a new generation, not a list change', () => {
    const first = mergeReport(undefined, ok({ hints: { ttlMs: 60_000, cacheScope: 'private' } }), 'd1', T1).state;
    const m = mergeReport(first, failed(), undefined, T2);
    expect(m).toMatchObject({ changed: false, flipped: true, lists: new Set() });
    expect(m.state).toMatchObject({ ok: false, lastError: 'HTTP 502', prompts: [prompt('a')], digest: 'd1' });
    expect(m.state.hints).toEqual({ ttlMs: 60_000, cacheScope: 'private' });
    // Failing again is no news; recovering with the same listing clears the mark (flipped only).
    expect(mergeReport(m.state, failed(), undefined, T2)).toMatchObject({ changed: false, flipped: false });
    expect(mergeReport(m.state, ok(), 'd1', T2)).toMatchObject({ changed: false, flipped: true });
  });

  it('new groups change who sees it at once, even while it fails', () => {
    const first = mergeReport(undefined, ok(), 'd1', T1).state;
    const m = mergeReport(first, failed({ groups: ['eng'] }), undefined, T2);
    expect(m).toMatchObject({ changed: true, lists: new Set(['prompts']) });
    expect(m.state.groups).toEqual(['eng']);
  });

  it('new cache hints make a new snapshot, not a list change', () => {
    const first = mergeReport(undefined, ok(), 'd1', T1).state;
    const m = mergeReport(first, ok({ hints: { ttlMs: 1_000, cacheScope: 'public' } }), 'd1', T2);
    expect(m).toMatchObject({ changed: false, flipped: true, lists: new Set() });
  });

  it('new skills hints make a new snapshot, not a list change; a failure of either half keeps them', () => {
    const first = mergeReport(undefined, ok({ skills }), 'd1', T1).state;
    const hinted = ok({ skills, skillsHints: { ttlMs: 0, cacheScope: 'private' } });
    const m = mergeReport(first, hinted, 'd1', T2);
    expect(m).toMatchObject({ changed: false, flipped: true, lists: new Set() });
    expect(m.state.skillsHints).toEqual({ ttlMs: 0, cacheScope: 'private' });
    expect(mergeReport(m.state, hinted, 'd1', T2)).toMatchObject({ changed: false, flipped: false });
    const stale = mergeReport(m.state, ok({ skillsError: 'timeout: slow' }), 'd1', T2).state;
    expect(stale).toMatchObject({ skills, skillsHints: { ttlMs: 0, cacheScope: 'private' } });
    expect(mergeReport(m.state, failed({ skills }), undefined, T2).state.skillsHints).toBeUndefined();
    expect(mergeReport(m.state, failed(hinted), undefined, T2).state.skillsHints).toEqual(hinted.skillsHints);
  });

  it('a failure before anything was asked (a handshake, an open breaker) keeps its skills too, marked stale', () => {
    const first = mergeReport(undefined, ok({ skills, skillsHints: { ttlMs: 0, cacheScope: 'private' } }), 'd1', T1);
    // What listUpstream reports when the handshake fails, and upstream-object.ts when its breaker is open.
    const m = mergeReport(first.state, failed(), undefined, T2);
    expect(m).toMatchObject({ changed: false, flipped: true, lists: new Set() });
    expect(m.state).toMatchObject({
      skills,
      skillsHints: { ttlMs: 0, cacheScope: 'private' },
      skillsError: 'HTTP 502',
    });
    // Back: the fresh listing replaces them and the mark goes.
    const back = mergeReport(m.state, ok({ skills }), 'd1', T2);
    expect(back.state.skillsError).toBeUndefined();
    expect(back.lists.has('skills')).toBe(false);
    // An upstream that never had skills gains no mark from a failed handshake.
    expect(mergeReport(mergeReport(undefined, ok(), 'd1', T1).state, failed(), undefined, T2).state).not.toHaveProperty(
      'skillsError',
    );
  });

  it('a new prefix moves the prompts', () => {
    const first = mergeReport(undefined, ok(), 'd1', T1).state;
    expect(mergeReport(first, ok({ prefix: 'other' }), 'd1', T2)).toMatchObject({
      changed: true,
      lists: new Set(['prompts']),
    });
  });
});
