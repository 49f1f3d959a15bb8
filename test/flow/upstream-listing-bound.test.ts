/**
 * An upstream's prompt listing is kept as one row of the writer's SQLite (at most 2 MB): a listing
 * larger than that could never be stored, and the upstream froze at its last listing while every
 * report of it failed. The kept listing is bounded in bytes (sanitize.ts); what is past the bound
 * is skipped, and the rest is stored and served.
 */
import { env } from 'cloudflare:test';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { utf8Length } from '../../src/catalog/arguments.js';
import { catalogWriter } from '../../src/catalog/stubs.js';
import { forgetUpstreamConfig, UPSTREAMS_KEY, validateUpstreams } from '../../src/catalog/upstreams/config.js';
import { reported } from '../../src/catalog/upstreams/report.js';
import { MAX_PROMPTS_LISTING_BYTES } from '../../src/catalog/upstreams/sanitize.js';

const ENTRY = { id: 'big', url: 'https://big.example/mcp', prefix: 'big' };

beforeAll(async () => {
  await env.PROMPTS.put(UPSTREAMS_KEY, JSON.stringify([ENTRY]));
  forgetUpstreamConfig(env);
});
afterAll(async () => {
  await env.PROMPTS.delete(UPSTREAMS_KEY);
  forgetUpstreamConfig(env);
});

it('a listing past the row limit is stored up to its bound and served, not refused whole', async () => {
  // 1,000 prompts of 4,000 two-byte characters each: about 8 MB as listed.
  const listed = Array.from({ length: 1000 }, (_, i) => ({
    name: `p${String(i).padStart(4, '0')}`,
    description: 'é'.repeat(4000),
  }));
  // The entry as the gateway parses it.
  const [config] = validateUpstreams(env, JSON.stringify([ENTRY]));
  const report = reported(config!, '.', { prompts: listed });
  const kept = report.prompts!;
  expect(kept.length).toBeGreaterThan(0);
  expect(kept.length).toBeLessThan(1000);
  expect(utf8Length(JSON.stringify(kept))).toBeLessThanOrEqual(MAX_PROMPTS_LISTING_BYTES + kept.length);
  // The first ones, in the upstream's order.
  expect(kept.map((p) => p.name)).toEqual(listed.slice(0, kept.length).map((p) => `big.${p.name}`));
  const { changed } = await catalogWriter(env).upstreamsReported([report]);
  expect(changed).toBe(true);
  const state = (await catalogWriter(env).upstreams()).find((u) => u.id === 'big')!;
  expect(state.prompts).toHaveLength(kept.length);
});
