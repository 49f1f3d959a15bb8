/**
 * Writing a catalog snapshot to KV (the CatalogWriter's snapshot-sync.ts is the one writer):
 * under its three keys, in the order that keeps every reader safe, and served by this isolate
 * at once. Reading and serving the catalog is store.ts.
 */
import { utf8Length } from './arguments.js';
import { adoptSnapshot, KV_KEYS } from './store.js';
import type { CatalogSnapshot } from './types.js';

/** The largest value KV stores (25 MiB): a snapshot must fit in one. */
export const KV_VALUE_MAX_BYTES = 25 * 1_048_576;

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
  await Promise.all([kv.put(snapshot!.key, snapshot!.value), kv.put(head!.key, head!.value)]);
  await kv.put(generation!.key, generation!.value);
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
