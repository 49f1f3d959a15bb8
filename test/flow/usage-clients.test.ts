/**
 * The usage store's bound on client labels: clients name themselves, so one hour keeps at most
 * MAX_CLIENTS_PER_HOUR labels and counts the rest as `(other)`, losing no count. The labels already
 * stored bind a restarted object too. Runs against the real UsageStore object and its SQLite storage.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { HOUR_MS, MAX_CLIENTS_PER_HOUR, type UsageTuple } from '../../src/usage/store.js';
import { OTHER } from '../../src/usage/hour-clients.js';

const store = () => env.USAGE_STORE.getByName('client-bound');
let sent = 0;

/** One flush's batch: a call of prompts/get by each client, in `hour`. */
function add(hour: number, clients: string[]) {
  const usage = clients.map((c): UsageTuple => [hour, 'prompts/get', 'p', c, 'legacy', 'ok', 1]);
  return store().add([{ id: `test:${sent++}`, batch: { usage, errors: [] } }]);
}

/** Calls by client label in the hours from `hour` on. */
async function byClient(hour: number): Promise<Map<string, number>> {
  const rows = await store().usage(hour, 'client');
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
});
