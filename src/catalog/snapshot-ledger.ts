/**
 * The catalog snapshots the CatalogWriter has put in KV (`catalog/snapshots/<g>`, written by
 * snapshot-write.ts), kept in its SQLite `snapshots` table so that each superseded one is deleted
 * once no reader can still want it (docs/storage-schema.md).
 */
import { log } from '../lib/log.js';
import { KV_KEYS } from './store.js';

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
