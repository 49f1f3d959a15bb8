/**
 * usage/query.ts against the real UsageStore (SQLite in Miniflare): grouping by prompt or client,
 * hour selection by `since`, the 7-day series for sparklines, errors by class, resent batch ids.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { dailyUse, errorsSince, usageSince } from '../../src/usage/query.js';
import { HOUR_MS, type UsageTuple } from '../../src/usage/store.js';
import { usageObject, usageStore } from '../../src/usage/stub.js';

const DAY = 24 * HOUR_MS;
/** A fixed day boundary in the recent past, so retention keeps every row. */
const NOW = Math.floor(Date.now() / DAY) * DAY + 12 * HOUR_MS;
const H = Math.floor(NOW / HOUR_MS);

const rows: UsageTuple[] = [
  [H, 'prompts/get', 'greet', 'a/1', 'modern', 'ok', 5],
  [H, 'prompts/get', 'greet', 'b/2', 'legacy', 'ok', 3],
  [H, 'prompts/get', 'greet', 'b/2', 'legacy', '-32602', 1],
  [H, 'completion/complete', 'greet', 'a/1', 'modern', 'ok', 2],
  [H - 2, 'prompts/get', 'alpha', 'a/1', 'modern', 'ok', 7],
  [H - 48, 'prompts/get', 'alpha', 'a/1', 'modern', 'ok', 4],
];

describe('usage queries', () => {
  it('groups, selects hours by since, builds daily series and error classes; a resent batch lands once', async () => {
    const batch = {
      usage: rows,
      errors: [[H, '-32602', 1] as [number, string, number], [H - 1, '404', 2] as [number, string, number]],
    };
    await usageStore(env).add([{ id: 'q:1', batch }]);
    await usageStore(env).add([{ id: 'q:1', batch }]);

    const { rows: byPrompt } = await usageSince(env, { since: NOW - 1, by: 'prompt' });
    expect(byPrompt).toEqual([
      { key: 'greet', method: 'prompts/get', era: 'modern', outcome: 'ok', count: 5 },
      { key: 'greet', method: 'prompts/get', era: 'legacy', outcome: 'ok', count: 3 },
      { key: 'greet', method: 'completion/complete', era: 'modern', outcome: 'ok', count: 2 },
      { key: 'greet', method: 'prompts/get', era: 'legacy', outcome: '-32602', count: 1 },
    ]);
    const { rows: byClient } = await usageSince(env, { since: NOW - 3 * HOUR_MS, by: 'client' });
    expect(byClient.find((r) => r.key === 'a/1' && r.method === 'prompts/get')?.count).toBe(12);
    expect(byClient.filter((r) => r.key === 'b/2').reduce((n, r) => n + r.count, 0)).toBe(4);

    const daily = await dailyUse(env, 7, NOW);
    expect(daily.get('greet')).toEqual([0, 0, 0, 0, 0, 0, 9]);
    expect(daily.get('alpha')).toEqual([0, 0, 0, 0, 4, 0, 7]);

    expect(await errorsSince(env, NOW - HOUR_MS)).toEqual({ '-32602': 1, '404': 2 });
    expect(await errorsSince(env, NOW)).toEqual({ '-32602': 1 });
  });

  it('prunes hours older than USAGE_RETENTION_DAYS on write', async () => {
    const now = Math.floor(Date.now() / HOUR_MS);
    const old = now - 90 * 24 - 1;
    // The store prunes at most once an hour; this instance may have pruned already in this one.
    await runInDurableObject(usageObject(env), (o) => void ((o as unknown as { prunedHour: number }).prunedHour = -1));
    await usageStore(env).add([
      {
        id: 'prune:1',
        batch: {
          usage: [
            [old, 'prompts/get', 'ancient', 'x/1', 'modern', 'ok', 1],
            [old + 2, 'prompts/get', 'kept', 'x/1', 'modern', 'ok', 1],
          ],
          errors: [[old, 'pruned-class', 1]],
        },
      },
    ]);
    const keys = (await usageSince(env, { since: 0, by: 'prompt' })).rows.map((r) => r.key);
    expect(keys).toContain('kept');
    expect(keys).not.toContain('ancient');
    expect(await errorsSince(env, 0)).not.toHaveProperty('pruned-class');
  });
});
