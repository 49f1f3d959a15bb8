/**
 * A snapshot write against KV's rate per key (snapshot-write.ts): head and generation are
 * rewritten by every change, and KV refuses a second write to a key within a second with a 429.
 * Miniflare does not enforce that rate, so the refusal is injected in front of the real local KV:
 * a refused write is retried after the second and the snapshot lands; any other failure is
 * reported at once.
 */
import { env } from 'cloudflare:test';
import { expect, it } from 'vitest';
import { KV_KEY_RETRY_MS, writeSnapshot } from '../../src/catalog/snapshot-write.js';
import { KV_KEYS } from '../../src/catalog/store.js';
import type { CatalogSnapshot } from '../../src/catalog/types.js';

/** The real KV, refusing the first `times` writes to `key` with `error`; records every write's key. */
function refusing(key: string, times: number, error: string) {
  const puts: string[] = [];
  let left = times;
  const kv = new Proxy(env.PROMPTS, {
    get(target, prop) {
      if (prop !== 'put') return Reflect.get(target, prop).bind(target);
      return (k: string, value: string) => {
        puts.push(k);
        if (k === key && left-- > 0) return Promise.reject(new Error(error));
        return target.put(k, value);
      };
    },
  });
  return { kv, puts };
}

const snapshot = (generation: number): CatalogSnapshot => ({
  generation,
  updatedAt: new Date().toISOString(),
  prompts: [],
  upstreams: [],
});

it("a write KV refuses for the key's rate (429) is retried after a second, and the snapshot lands", async () => {
  const generation = Date.now();
  const { kv, puts } = refusing(KV_KEYS.head, 1, 'KV PUT failed: 429 Too Many Requests');
  const t0 = Date.now();
  await writeSnapshot(kv, snapshot(generation));
  expect(Date.now() - t0).toBeGreaterThanOrEqual(KV_KEY_RETRY_MS);
  expect(puts.filter((k) => k === KV_KEYS.head)).toHaveLength(2);
  expect(await env.PROMPTS.get(KV_KEYS.generation)).toBe(String(generation));
  expect((await env.PROMPTS.get<CatalogSnapshot>(KV_KEYS.head, 'json'))?.generation).toBe(generation);
});

it('any other KV failure is reported at once, without a retry', async () => {
  const { kv, puts } = refusing(KV_KEYS.head, 1, 'KV PUT failed: 500 Internal Server Error');
  await expect(writeSnapshot(kv, snapshot(Date.now()))).rejects.toThrow(/500/);
  expect(puts.filter((k) => k === KV_KEYS.head)).toHaveLength(1);
  expect(puts, 'the generation is never written ahead of its snapshot').not.toContain(KV_KEYS.generation);
});

it('a key KV keeps refusing fails the write after the retries', async () => {
  const { kv, puts } = refusing(KV_KEYS.generation, 10, 'KV PUT failed: 429 Too Many Requests');
  await expect(writeSnapshot(kv, snapshot(Date.now()))).rejects.toThrow(/429/);
  expect(puts.filter((k) => k === KV_KEYS.generation)).toHaveLength(4);
}, 15_000);
