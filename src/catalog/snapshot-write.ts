/**
 * Writing a catalog snapshot to KV (the CatalogWriter's snapshot-sync.ts is the one writer):
 * under its three keys, in the order that keeps every reader safe, and served by this isolate
 * at once. Reading and serving the catalog is store.ts; deleting old snapshots, snapshot-ledger.ts.
 *
 * Two of the keys (head, generation) are rewritten by every change, and KV takes at most one
 * write per second to a key, refusing the next with a 429. Two changes a second apart are
 * ordinary (`push` publishes skills, then prompts), so a refused write is retried after that
 * second rather than reported as a failed publish whose versions were already recorded.
 */
import { utf8Length } from './arguments.js';
import { adoptSnapshot, KV_KEYS } from './store.js';
import type { CatalogSnapshot } from './types.js';

/** The largest value KV stores (25 MiB): a snapshot must fit in one. */
export const KV_VALUE_MAX_BYTES = 25 * 1_048_576;

/** KV's rate per key (one write a second), with a margin, and how many times a refused write is retried. */
export const KV_KEY_RETRY_MS = 1_100;
const KV_KEY_RETRIES = 3;

/** KV's refusal of a write to a key written within the last second ("KV PUT failed: 429 Too Many Requests"). */
const isRateLimited = (e: unknown): boolean => e instanceof Error && /\b429\b/.test(e.message);

/** One KV write, retried while KV refuses it for the key's rate; any other error is thrown at once. */
async function put(kv: KVNamespace, key: string, value: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await kv.put(key, value);
    } catch (e) {
      if (!isRateLimited(e) || attempt === KV_KEY_RETRIES) throw e;
      await new Promise((resolve) => setTimeout(resolve, KV_KEY_RETRY_MS));
    }
  }
}

export class SnapshotTooLargeError extends Error {
  constructor(readonly bytes: number) {
    super(`the catalog snapshot is ${bytes} bytes, over KV's ${KV_VALUE_MAX_BYTES}-byte value limit`);
  }
}

/**
 * Writes a snapshot under all three keys and makes this isolate serve it at
 * once; resolves its size in bytes. Callers assign the generation; the one
 * writer is the CatalogWriter Durable Object.
 */
export async function writeSnapshot(kv: KVNamespace, snap: CatalogSnapshot): Promise<number> {
  // Snapshot and head together, the generation last: a reader that sees the new
  // generation can always find its snapshot.
  const [snapshot, head, generation] = snapshotEntries(snap);
  const bytes = utf8Length(snapshot!.value);
  if (bytes > KV_VALUE_MAX_BYTES) throw new SnapshotTooLargeError(bytes);
  await Promise.all([put(kv, snapshot!.key, snapshot!.value), put(kv, head!.key, head!.value)]);
  await put(kv, generation!.key, generation!.value);
  adoptSnapshot(kv, snap);
  return bytes;
}

/** The three KV entries of a snapshot (writeSnapshot; the bench seeds KV with them too). */
export function snapshotEntries(snap: CatalogSnapshot): { key: string; value: string }[] {
  const json = JSON.stringify(snap);
  return [
    { key: KV_KEYS.snapshot(snap.generation), value: json },
    { key: KV_KEYS.head, value: json },
    { key: KV_KEYS.generation, value: String(snap.generation) },
  ];
}
