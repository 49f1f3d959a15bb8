/**
 * How the CLI cuts a prompt set for the gateway's per-request limits (cli/parts.ts): in order,
 * in as few parts as fit by count and by bytes, and one part when the whole set fits.
 */
import { describe, expect, it } from 'vitest';
import { partsOf, PART_BYTES, PART_PROMPTS } from '../../cli/parts.js';
import type { PromptRecord } from '../../src/catalog/types.js';

const prompt = (name: string, text = 'x'): PromptRecord => ({
  name,
  messages: [{ role: 'user', content: { type: 'text', text } }],
});

describe('partsOf', () => {
  it('a set that fits is one part, the same records in the same order', () => {
    const set = Array.from({ length: PART_PROMPTS }, (_, i) => prompt(`p${i}`));
    expect(partsOf(set)).toEqual([set]);
    expect(partsOf([])).toEqual([[]]);
  });

  it('cuts by count', () => {
    const set = Array.from({ length: 2 * PART_PROMPTS + 1 }, (_, i) => prompt(`p${i}`));
    const parts = partsOf(set);
    expect(parts.map((p) => p.length)).toEqual([PART_PROMPTS, PART_PROMPTS, 1]);
    expect(parts.flat()).toEqual(set);
  });

  it('cuts by bytes, each part under the limit as JSON, and never leaves a part empty', () => {
    const big = 'é'.repeat(700_000); // 1.4 MB as UTF-8, 700,000 characters
    const set = Array.from({ length: 7 }, (_, i) => prompt(`b${i}`, big));
    const parts = partsOf(set);
    expect(parts.flat()).toEqual(set);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) {
      expect(part.length).toBeGreaterThan(0);
      expect(Buffer.byteLength(JSON.stringify({ prompts: part }))).toBeLessThanOrEqual(PART_BYTES + 64);
    }
    // A limit smaller than one record still sends it, alone.
    expect(partsOf(set.slice(0, 2), 10, 100).map((p) => p.length)).toEqual([1, 1]);
  });
});
