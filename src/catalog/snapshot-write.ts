/**
 * Writing a catalog snapshot to KV (the CatalogWriter's snapshot-sync.ts is the one writer):
 * under its three keys, in the order that keeps every reader safe, and served by this isolate
 * at once; and deleting the snapshots of generations superseded long ago (SnapshotLedger).
 * Reading and serving the catalog is store.ts.
 *
 * Two of the keys (head, generation) are rewritten by every change, and KV takes at most one
 * write per second to a key, refusing the next with a 429. Two changes a second apart are
 * ordinary (`push` publishes skills, then prompts), so a refused write is retried after that
 * second rather than reported as a failed publish whose versions were already recorded.
 */
import { log } from '../lib/log.js';
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

/**
 * How long a superseded snapshot stays in KV. Only a reader catching up reads an old generation's
 * key (store.ts loadSnapshot: an isolate's refresh, a stream's catch-up, both within minutes of the
 * change, the colo's announced generation lives 5 minutes); one that finds it gone loads the
 * generation KV names instead.
 */
export const SNAPSHOT_GRACE_MS = 60 * 60_000;
/** The most old snapshots one write deletes: KV allows 1,000 operations per invocation. */
export const PRUNE_PER_WRITE = 50;
/** The most untracked snapshot keys one write adopts (one KV list page). */
const ADOPT_PER_WRITE = 1_000;

const PREFIX = KV_KEYS.snapshot(0).slice(0, -1);

/**
 * The snapshots the writer has put in KV (its SQLite `snapshots` table, docs/storage-schema.md),
 * each with when its successor came out, so that a superseded one is deleted once no reader can
 * still want it. Never the current generation, which the head holds too.
 */
export class SnapshotLedger {
  /** Whether the table was made here, on a writer that may have written snapshots before it. */
  readonly created: boolean;

  constructor(private readonly sql: SqlStorage) {
    this.created = !sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'snapshots'").toArray()
      .length;
    sql.exec('CREATE TABLE IF NOT EXISTS snapshots (generation INTEGER PRIMARY KEY, superseded_at INTEGER)');
  }

  /** Before its KV write: a write that fails half-way may leave the key behind, for a later one to supersede. */
  begun(generation: number): void {
    this.sql.exec('INSERT OR IGNORE INTO snapshots (generation) VALUES (?)', generation);
  }

  /**
   * After `generation` is out: the ones before it are superseded now, and up to PRUNE_PER_WRITE
   * superseded over SNAPSHOT_GRACE_MS ago are deleted. Never throws: what is not deleted is kept
   * for the next write.
   */
  async published(kv: KVNamespace, generation: number): Promise<void> {
    const now = Date.now();
    this.sql.exec(
      'UPDATE snapshots SET superseded_at = ? WHERE generation < ? AND superseded_at IS NULL',
      now,
      generation,
    );
    const due = this.sql
      .exec<{ generation: number }>(
        'SELECT generation FROM snapshots WHERE superseded_at <= ? AND generation < ? ORDER BY generation LIMIT ?',
        now - SNAPSHOT_GRACE_MS,
        generation,
        PRUNE_PER_WRITE,
      )
      .toArray()
      .map((r) => r.generation);
    if (!due.length) return;
    try {
      await Promise.all(due.map((g) => kv.delete(KV_KEYS.snapshot(g))));
      this.sql.exec(`DELETE FROM snapshots WHERE generation IN (${due.map(() => '?').join(',')})`, ...due);
    } catch (e) {
      log.warn('old catalog snapshots not deleted; the next write tries again', { error: String(e) });
    }
  }

  /**
   * Tracks one page of the snapshot keys KV holds from before this table (from `cursor`, '' for the
   * first), as superseded now, all but `current`'s. Resolves the next page's cursor, undefined after the last.
   */
  async adopt(kv: KVNamespace, cursor: string, current: number): Promise<string | undefined> {
    const page = await kv.list({ prefix: PREFIX, limit: ADOPT_PER_WRITE, ...(cursor && { cursor }) });
    const now = Date.now();
    for (const { name } of page.keys) {
      const g = Number(name.slice(PREFIX.length));
      if (Number.isSafeInteger(g) && g < current)
        this.sql.exec('INSERT OR IGNORE INTO snapshots VALUES (?, ?)', g, now);
    }
    return page.list_complete ? undefined : page.cursor;
  }
}
