/**
 * A registry shard's event log (registry-shard.ts): the newest generation it announced, so a
 * retried fan-out never repeats a notification, and the recent changes, so a legacy stream that
 * resumes (Last-Event-ID, or its Worker reconnecting) is replayed exactly what it missed. A
 * change is one row here, written once for every stream of the shard.
 */
import type { CatalogEvent, ChangedList, ShardFrame } from './events.js';

/** Replay is bounded in count and age: enough to bridge a reconnect, not an archive. */
export const REPLAY_MAX_EVENTS = 100;
export const REPLAY_MAX_AGE_MS = 60 * 60 * 1000;

/** What a missed change that the log no longer holds may have touched: every list. */
const ALL_LISTS: ChangedList[] = ['prompts', 'skills'];

export class ReplayLog {
  constructor(private readonly storage: DurableObjectStorage) {
    const sql = storage.sql;
    sql.exec(
      'CREATE TABLE IF NOT EXISTS announced (id INTEGER PRIMARY KEY CHECK (id = 0), generation INTEGER NOT NULL)',
    );
    sql.exec('CREATE TABLE IF NOT EXISTS events (generation INTEGER PRIMARY KEY, lists TEXT NOT NULL, at INTEGER)');
    // The newest generation trimmed from the log: a resume from before it missed changes the log no longer names.
    sql.exec('CREATE TABLE IF NOT EXISTS trimmed (id INTEGER PRIMARY KEY CHECK (id = 0), generation INTEGER NOT NULL)');
  }

  /** The newest generation this shard announced (0 before the first). */
  announced(): number {
    return (
      this.storage.sql.exec<{ generation: number }>('SELECT generation FROM announced').toArray()[0]?.generation ?? 0
    );
  }

  /**
   * Records a change as announced: its log row, the announced mark and the log's trim, all or
   * nothing (a failed delivery leaves the shard as it was, and the feed's retry does it whole).
   * The rows written.
   */
  record(event: CatalogEvent): number {
    const sql = this.storage.sql;
    const lists = JSON.stringify(event.lists ?? ['prompts']);
    return this.storage.transactionSync(
      () =>
        sql.exec(
          'INSERT OR REPLACE INTO events (generation, lists, at) VALUES (?, ?, ?)',
          event.generation,
          lists,
          Date.now(),
        ).rowsWritten +
        sql.exec('INSERT OR REPLACE INTO announced (id, generation) VALUES (0, ?)', event.generation).rowsWritten +
        this.trim(),
    );
  }

  /**
   * What a stream resuming at `since` missed, oldest first. When the log no longer holds all of
   * it (trimmed past `since`, or older than the replay age), one event for every list instead:
   * what the missing changes touched is not known, and a list must not go unannounced.
   */
  since(since: number): ShardFrame[] {
    const sql = this.storage.sql;
    const rows = sql
      .exec<{ generation: number; lists: string; at: number | null }>(
        'SELECT generation, lists, at FROM events WHERE generation > ? ORDER BY generation',
        since,
      )
      .toArray();
    const trimmed = sql.exec<{ generation: number }>('SELECT generation FROM trimmed').toArray()[0]?.generation ?? 0;
    const held = rows.length > 0 && since >= trimmed && (rows[0]!.at ?? 0) > Date.now() - REPLAY_MAX_AGE_MS;
    if (!held)
      return [{ t: 'event', event: { kind: 'prompts_list_changed', generation: this.announced(), lists: ALL_LISTS } }];
    return rows.map((r) => ({
      t: 'event',
      event: { kind: 'prompts_list_changed', generation: r.generation, lists: JSON.parse(r.lists) as ChangedList[] },
    }));
  }

  /** Keeps the newest REPLAY_MAX_EVENTS events, and remembers the newest generation it let go. */
  private trim(): number {
    const sql = this.storage.sql;
    // The newest event past the kept ones, if the log is that long: it and everything older go.
    const cut = sql
      .exec<{ generation: number }>(
        'SELECT generation FROM events ORDER BY generation DESC LIMIT 1 OFFSET ?',
        REPLAY_MAX_EVENTS,
      )
      .toArray()[0]?.generation;
    if (cut === undefined) return 0;
    return (
      sql.exec('DELETE FROM events WHERE generation <= ?', cut).rowsWritten +
      sql.exec(
        'INSERT INTO trimmed (id, generation) VALUES (0, ?) ON CONFLICT (id) DO UPDATE SET generation = max(generation, excluded.generation)',
        cut,
      ).rowsWritten
    );
  }
}
