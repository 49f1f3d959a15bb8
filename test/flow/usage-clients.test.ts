/**
 * The usage store's bounds: clients name themselves, so one hour keeps at most MAX_CLIENTS_PER_HOUR
 * labels and MAX_ROWS_PER_HOUR rows and counts the rest under client `(other)`, losing no count. What
 * is stored binds a restarted object too, and old hours are pruned even when a write fails. Runs
 * against the real UsageStore object and its SQLite storage.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import {
  HOUR_MS,
  MAX_CLIENTS_PER_HOUR,
  MAX_ROWS_PER_HOUR,
  type UsageStore,
  type UsageTuple,
} from '../../src/usage/store.js';
import { OTHER } from '../../src/usage/hour-clients.js';
import { MAX_USAGE_ROWS } from '../../src/usage/query.js';
import { usageStore } from '../../src/usage/stub.js';
import { adminFetch } from '../helpers/worker.js';

const store = () => env.USAGE_STORE.getByName('client-bound');
let sent = 0;

/** One flush's batch: a call of prompts/get by each client, in `hour`. */
function add(hour: number, clients: string[]) {
  const usage = clients.map((c): UsageTuple => [hour, 'prompts/get', 'p', c, 'legacy', 'ok', 1]);
  return store().add([{ id: `test:${sent++}`, batch: { usage, errors: [] } }]);
}

/** Calls by client label in the hours from `hour` on. */
async function byClient(hour: number): Promise<Map<string, number>> {
  const rows = await store().usage(hour, 'client', 10_000);
  return new Map(rows.map((r) => [r.key, r.count]));
}

const labels = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `client-${from + i}/1.0`);

describe('client labels in the usage store', () => {
  it('keeps at most MAX_CLIENTS_PER_HOUR per hour; the rest count as (other), and every call is counted', async () => {
    const hour = Math.floor(Date.now() / HOUR_MS);
    await add(hour, labels(MAX_CLIENTS_PER_HOUR + 5));
    let counts = await byClient(hour);
    expect(counts.size).toBe(MAX_CLIENTS_PER_HOUR + 1);
    expect(counts.get(OTHER)).toBe(5);
    expect(counts.get('client-0/1.0')).toBe(1);
    expect([...counts.values()].reduce((a, b) => a + b)).toBe(MAX_CLIENTS_PER_HOUR + 5);

    // A label the hour knows keeps its row; a new one folds, also after the object restarted.
    await runInDurableObject(store(), (_o, ctx) => ctx.abort('restart')).catch(() => {});
    await add(hour, ['client-7/1.0', 'newcomer/2.0', OTHER]);
    counts = await byClient(hour);
    expect(counts.get('client-7/1.0')).toBe(2);
    expect(counts.has('newcomer/2.0')).toBe(false);
    expect(counts.get(OTHER)).toBe(7);

    // The next hour has a bound of its own.
    await add(hour + 1, ['newcomer/2.0']);
    expect((await byClient(hour + 1)).get('newcomer/2.0')).toBe(1);
  });

  it('keeps at most MAX_ROWS_PER_HOUR rows per hour plus one (other) row per prompt, counting every call', async () => {
    const rowsStore = () => env.USAGE_STORE.getByName('row-bound');
    const hour = Math.floor(Date.now() / HOUR_MS);
    // Every known label on more prompts than the hour has rows for: 20 prompts × 600 labels.
    const prompts = Array.from({ length: 20 }, (_, i) => `p${i}`);
    const usage = prompts.flatMap((p) =>
      labels(600).map((c): UsageTuple => [hour, 'prompts/get', p, c, 'modern', 'ok', 1]),
    );
    expect(usage.length).toBeGreaterThan(MAX_ROWS_PER_HOUR);
    await rowsStore().add([{ id: 'rows:a', batch: { usage, errors: [] } }]);
    // After a restart, a stored row still counts as itself; a new one folds.
    await runInDurableObject(rowsStore(), (_o, ctx) => ctx.abort('restart')).catch(() => {});
    const more: UsageTuple[] = [
      [hour, 'prompts/get', 'p0', 'client-0/1.0', 'modern', 'ok', 1],
      [hour, 'prompts/get', 'p19', 'client-599/1.0', 'modern', 'ok', 1],
    ];
    await rowsStore().add([{ id: 'rows:b', batch: { usage: more, errors: [] } }]);
    const rows = await runInDurableObject(rowsStore(), (_o, ctx) =>
      ctx.storage.sql
        .exec<{ prompt: string; client: string; count: number }>(
          'SELECT prompt, client, count FROM usage WHERE hour = ?',
          hour,
        )
        .toArray(),
    );
    const named = rows.filter((r) => r.client !== OTHER);
    expect(named).toHaveLength(MAX_ROWS_PER_HOUR);
    expect(
      rows
        .filter((r) => r.client === OTHER)
        .map((r) => r.prompt)
        .sort(),
    ).toEqual(prompts.slice(16).sort());
    expect(rows.find((r) => r.prompt === 'p0' && r.client === 'client-0/1.0')?.count).toBe(2);
    expect(rows.find((r) => r.prompt === 'p19' && r.client === OTHER)?.count).toBe(601);
    expect(rows.reduce((n, r) => n + r.count, 0)).toBe(usage.length + 2);
  });

  it('prunes hours past retention before a write, so a write that fails still sheds them', async () => {
    const pruned = () => env.USAGE_STORE.getByName('prune-first');
    const old = Math.floor(Date.now() / HOUR_MS) - 24 * 365;
    // Rows of a year ago, as a store that ran then holds them (a write of them now is dropped, not stored).
    await runInDurableObject(pruned(), (_o, ctx) => {
      ctx.storage.sql.exec("INSERT INTO usage VALUES (?, 'prompts/get', 'p', 'c/1', 'modern', 'ok', 1)", old);
      ctx.storage.sql.exec("INSERT INTO errors VALUES (?, 'parse', 1)", old);
    });
    const count = () =>
      runInDurableObject(
        pruned(),
        (_o, ctx) => ctx.storage.sql.exec('SELECT hour FROM usage UNION ALL SELECT hour FROM errors').toArray().length,
      );
    expect(await count()).toBe(2);
    // The object's next write prunes first; here that write fails (a row the table refuses).
    const bad = [old + 24 * 365, null, 'p', 'c/1', 'modern', 'ok', 1] as unknown as UsageTuple;
    // Caught inside the object: a rejected RPC is reported as unhandled by the pool.
    const failed = await runInDurableObject(pruned(), (o: UsageStore) =>
      o.add([{ id: 'bad', batch: { usage: [bad], errors: [] } }]).then(
        () => null,
        (e: unknown) => String(e),
      ),
    );
    expect(failed).toMatch(/NOT NULL constraint failed/);
    expect(await count()).toBe(0);
  });

  it('the admin API lists the largest MAX_USAGE_ROWS groups, says it left some out, and totals every call', async () => {
    const now = Math.floor(Date.now() / HOUR_MS);
    // Two hours of a full set of labels each: more groups than one answer lists.
    for (const [i, hour] of [now - 3, now - 2].entries()) {
      const usage = labels(MAX_CLIENTS_PER_HOUR, i * MAX_CLIENTS_PER_HOUR).map((c): UsageTuple => [
        hour,
        'prompts/get',
        'p',
        c,
        'modern',
        'ok',
        1,
      ]);
      await usageStore(env).add([{ id: `rows:${i}`, batch: { usage, errors: [] } }]);
    }
    const since = new Date((now - 3) * HOUR_MS).toISOString();
    const res = await adminFetch('GET', `/usage?by=client&since=${since}`);
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body).slice(0, 300)).toBe(200);
    expect(body.rows).toHaveLength(MAX_USAGE_ROWS);
    expect(body.truncated).toBe(true);
    expect(body.totals).toEqual({
      count: 2 * MAX_CLIENTS_PER_HOUR,
      ok: 2 * MAX_CLIENTS_PER_HOUR,
      failed: 0,
      byMethod: { 'prompts/get': 2 * MAX_CLIENTS_PER_HOUR },
    });
    // By prompt, one group: nothing is left out.
    const one = (await (await adminFetch('GET', `/usage?by=prompt&since=${since}`)).json()) as any;
    expect(one.rows).toEqual([
      { key: 'p', method: 'prompts/get', era: 'modern', outcome: 'ok', count: 2 * MAX_CLIENTS_PER_HOUR },
    ]);
    expect(one.truncated).toBeUndefined();
  });
});
