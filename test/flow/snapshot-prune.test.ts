/**
 * Old catalog snapshots leave KV (snapshot-ledger.ts): every generation writes
 * `catalog/snapshots/<g>`, and one superseded over SNAPSHOT_GRACE_MS ago, which no reader catching
 * up can still want, is deleted by a later write; never the current one nor one superseded within
 * the grace, a bounded number per write, and those written before the writer tracked them too.
 * The clock is moved by faking Date, which the writer's object (in this isolate) reads as well.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { afterEach, beforeAll, expect, it, vi } from 'vitest';
import { PRUNE_PER_WRITE, SNAPSHOT_GRACE_MS } from '../../src/catalog/snapshot-ledger.js';
import { KV_KEYS, loadSnapshot, readGeneration, servedGeneration } from '../../src/catalog/store.js';
import { writerObject } from '../../src/catalog/stubs.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { publish } from '../helpers/worker.js';

const stored = async (g: number) => (await env.PROMPTS.get(KV_KEYS.snapshot(g))) !== null;
/** Moves this isolate's clock (and so the writer's) past the grace of everything superseded so far. */
const graceLater = () => vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + SNAPSHOT_GRACE_MS + 60_000 });
const inWriter = <T>(fn: (sql: SqlStorage) => T) =>
  runInDurableObject(writerObject(env), (_o, ctx) => fn(ctx.storage.sql));

beforeAll(async () => {
  await publish(FIXTURE_PROMPTS);
});
afterEach(() => vi.useRealTimers());

it('deletes a snapshot superseded past the grace, keeps the current one and its predecessor within it', async () => {
  const first = await publish(FIXTURE_PROMPTS);
  const second = await publish(FIXTURE_PROMPTS);
  graceLater();
  const third = await publish(FIXTURE_PROMPTS);
  expect(await readGeneration(env.PROMPTS)).toBe(third);
  expect(await stored(first)).toBe(false);
  expect(await stored(second)).toBe(true);
  expect(await stored(third)).toBe(true);
  // A reader catching up: to the predecessor, still; to the pruned one, not found, and it keeps what it serves.
  expect(await loadSnapshot(env.PROMPTS, second)).toBe(true);
  expect(await loadSnapshot(env.PROMPTS, first)).toBe(false);
  expect(servedGeneration(env.PROMPTS)).toBe(third);
  // The next write past the grace deletes the predecessor too, never the one the head holds.
  graceLater();
  const fourth = await publish(FIXTURE_PROMPTS);
  expect(await stored(second)).toBe(false);
  expect(await stored(third)).toBe(true);
  expect(await stored(fourth)).toBe(true);
});

it('deletes at most PRUNE_PER_WRITE old snapshots per write; the rest go with the next one', async () => {
  const current = await publish(FIXTURE_PROMPTS);
  // A backlog of old snapshots, superseded long ago.
  const old = Array.from({ length: PRUNE_PER_WRITE + 5 }, (_, i) => 1_000 + i);
  await Promise.all(old.map((g) => env.PROMPTS.put(KV_KEYS.snapshot(g), '{}')));
  await inWriter((sql) => old.forEach((g) => sql.exec('INSERT INTO snapshots VALUES (?, ?)', g, 1)));
  await publish(FIXTURE_PROMPTS);
  const left = (await Promise.all(old.map(stored))).filter(Boolean).length;
  expect(left).toBe(5);
  await publish(FIXTURE_PROMPTS);
  expect((await Promise.all(old.map(stored))).filter(Boolean).length).toBe(0);
  expect(await stored(current)).toBe(true);
});

it('adopts the snapshots KV holds from before the writer tracked them, and deletes them past the grace', async () => {
  const untracked = [2_000, 2_001];
  await Promise.all(untracked.map((g) => env.PROMPTS.put(KV_KEYS.snapshot(g), '{}')));
  // A writer from before the ledger: no table; its object starts anew.
  await inWriter((sql) => sql.exec('DROP TABLE snapshots'));
  await runInDurableObject(writerObject(env), (_o, ctx) => ctx.abort('restart')).catch(() => {});
  const adopting = await publish(FIXTURE_PROMPTS);
  expect(await stored(untracked[0]!)).toBe(true);
  graceLater();
  await publish(FIXTURE_PROMPTS);
  for (const g of untracked) expect(await stored(g)).toBe(false);
  expect(await stored(adopting)).toBe(true);
});
