/**
 * The log line of an upstream's unpublished prompts (catalog/upstreams/skip-log.ts): written when
 * they change, not on every listing of the same upstream.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SkipLog } from '../../src/catalog/upstreams/skip-log.js';

const TAKEN = { name: 'gh.b', original: 'b', reason: 'the alias of "a" takes the name' };
const TWICE = { name: 'gh.c', original: 'c', reason: 'listed twice' };

describe('SkipLog', () => {
  afterEach(() => void vi.restoreAllMocks());

  it('logs the skipped prompts once, again when they change, and nothing when there are none', () => {
    const lines: unknown[] = [];
    vi.spyOn(console, 'warn').mockImplementation((line: string) => void lines.push(JSON.parse(line)));
    const skips = new SkipLog();
    skips.note('gh', undefined);
    expect(lines).toEqual([]);
    skips.note('gh', [TAKEN]);
    skips.note('gh', [TAKEN]);
    skips.note('gh', [TAKEN]);
    expect(lines).toEqual([{ msg: 'upstream prompts not published', upstream: 'gh', prompts: [TAKEN] }]);
    skips.note('gh', [TAKEN, TWICE]);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ prompts: [TAKEN, TWICE] });
    // Fixed: nothing to log, and a skip that comes back is news again.
    skips.note('gh', undefined);
    expect(lines).toHaveLength(2);
    skips.note('gh', [TAKEN]);
    expect(lines).toHaveLength(3);
  });
});
