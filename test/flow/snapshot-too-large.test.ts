/**
 * A catalog that upstream listings grew past one KV value (snapshot-sync.ts, versioned-writes.ts):
 * its snapshot cannot be written, and a prompt write is judged by the size it really has, not by
 * the last snapshot that was written. One that grows the catalog further is refused as any too
 * large a write is (413 catalog_too_large, nothing recorded), and so is one that shrinks it too little
 * to fit KV; one that shrinks it enough goes through and publishes the catalog again. A write with
 * nothing to change says the catalog is not served. Meanwhile the writer retries the snapshot rarely.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TOO_LARGE_RETRY_MS } from '../../src/catalog/snapshot-sync.js';
import { KV_VALUE_MAX_BYTES } from '../../src/catalog/snapshot-write.js';
import { readGeneration } from '../../src/catalog/store.js';
import { catalogWriter, writerObject } from '../../src/catalog/stubs.js';
import { forgetUpstreamConfig, UPSTREAMS_KEY, validateUpstreams } from '../../src/catalog/upstreams/config.js';
import { reported } from '../../src/catalog/upstreams/report.js';
import { MAX_CATALOG_BYTES } from '../../src/catalog/versioned-writes.js';
import { adminFetch as admin } from '../helpers/worker.js';

const text = (name: string, t: string) => ({ name, messages: [{ role: 'user', content: { type: 'text', text: t } }] });
/** A prompt of about `bytes` (a text is at most 100,000 characters, an image's data is not). */
const image = (name: string, bytes: number) => ({
  name,
  messages: [
    { role: 'user', content: { type: 'image', mimeType: 'image/png', data: 'A'.repeat(bytes - (bytes % 4)) } },
  ],
});

/** Prompts filling most of the catalog limit, and upstreams whose listings (at their bound each) pass one KV value. */
const PROMPTS = 7;
const PROMPT_BYTES = Math.floor((MAX_CATALOG_BYTES * 0.9) / PROMPTS);
const UPSTREAMS = Array.from({ length: 26 }, (_, i) => ({ id: `wide${i}`, url: `https://wide${i}.example/mcp` }));

/** When the writer retries its snapshot. */
const writerAlarm = (): Promise<number | null> =>
  runInDurableObject(writerObject(env), (_o, ctx) => ctx.storage.getAlarm());

beforeAll(async () => {
  await env.PROMPTS.put(UPSTREAMS_KEY, JSON.stringify(UPSTREAMS));
  forgetUpstreamConfig(env);
});
afterAll(async () => {
  await env.PROMPTS.delete(UPSTREAMS_KEY);
  forgetUpstreamConfig(env);
});

it('a growing prompt write is refused 413 catalog_too_large, a shrinking one publishes the catalog again', async () => {
  for (let i = 0; i < PROMPTS; i++) {
    const res = await admin('PUT', `/prompts/big_${i}`, image(`big_${i}`, PROMPT_BYTES));
    expect(res.status, await res.text()).toBe(200);
  }
  const listing = Array.from({ length: 200 }, (_, i) => ({ name: `p${i}`, description: 'x'.repeat(4000) }));
  const reports = validateUpstreams(env, JSON.stringify(UPSTREAMS)).map((u) => reported(u, '.', { prompts: listing }));
  const refused = await catalogWriter(env)
    .upstreamsReported(reports)
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(String(refused)).toMatch(/over KV's \d+-byte value limit/);
  const generation = await readGeneration(env.PROMPTS);

  // The snapshot cannot change until a write does: its retry waits, it is not every 5 s.
  expect(await writerAlarm()).toBeGreaterThan(Date.now() + TOO_LARGE_RETRY_MS / 2);

  const grow = await admin('PUT', '/prompts/one_more', text('one_more', 'y'.repeat(100)));
  expect(grow.status).toBe(413);
  const body = (await grow.json()) as any;
  expect(body.error.code).toBe('catalog_too_large');
  const size = Number(/about (\d+) bytes/.exec(body.error.message)?.[1]);
  expect(size).toBeGreaterThan(KV_VALUE_MAX_BYTES);
  expect((await admin('GET', '/prompts/one_more')).status).toBe(404);
  expect(await readGeneration(env.PROMPTS)).toBe(generation);

  // A shrinking write that would still leave it too large for KV is refused too, not recorded unpublished.
  const removeOne = await admin('DELETE', '/prompts/big_0');
  expect(removeOne.status).toBe(413);
  const still = ((await removeOne.json()) as any).error;
  expect(still.code).toBe('catalog_too_large');
  expect(Number(/still be about (\d+) bytes/.exec(still.message)?.[1])).toBeGreaterThan(KV_VALUE_MAX_BYTES);
  expect(still.message).toMatch(/remove at least \d+ more bytes in one write/);
  expect((await admin('GET', '/prompts/big_0')).status).toBe(200);
  expect(await readGeneration(env.PROMPTS)).toBe(generation);
  // Nor is a write with nothing to change "ok" while what is recorded is not served.
  const same = await admin('PUT', '/prompts/big_1', image('big_1', PROMPT_BYTES));
  expect(same.status).toBe(413);
  const unserved = ((await same.json()) as any).error;
  expect(unserved.code).toBe('catalog_too_large');
  expect(unserved.message).toMatch(/^Nothing to change, but generation \d+ is recorded and not served/);

  // Replacing the set with one small prompt drops the large ones: the catalog fits again and is published.
  const shrink = await admin('POST', '/publish?prune=1', { prompts: [text('small', 'z')] });
  expect(shrink.status, await shrink.clone().text()).toBe(200);
  expect(await readGeneration(env.PROMPTS)).toBeGreaterThan(generation);
  const head = await env.PROMPTS.get<{ prompts: { name: string }[]; upstreams: unknown[] }>('catalog/head', 'json');
  expect(head!.prompts.map((p) => p.name)).toEqual(['small']);
  expect(head!.upstreams).toHaveLength(UPSTREAMS.length);
  // Written at last: a growing write is judged by that snapshot (past the catalog limit by its upstreams alone).
  const again = await admin('PUT', '/prompts/one_more', text('one_more', 'y'.repeat(100)));
  expect(again.status).toBe(413);
  const after = Number(/about (\d+) bytes/.exec(((await again.json()) as any).error.message)?.[1]);
  expect(after).toBeGreaterThan(MAX_CATALOG_BYTES);
  expect(after).toBeLessThan(KV_VALUE_MAX_BYTES);
});
