/**
 * The usage store's bound on client labels: clients name themselves, so one hour keeps at most
 * MAX_CLIENTS_PER_HOUR labels and counts the rest as `(other)`, losing no count. The labels already
 * stored bind a restarted object too. Runs against the real UsageStore object and its SQLite storage.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { HOUR_MS, MAX_CLIENTS_PER_HOUR, type UsageTuple } from '../../src/usage/store.js';
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
