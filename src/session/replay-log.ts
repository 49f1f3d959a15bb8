/**
 * A registry shard's event log (registry-shard.ts): the newest generation it announced, so a
 * retried fan-out never repeats a notification, and the recent changes, so a legacy stream that
 * resumes (Last-Event-ID, or its Worker reconnecting) is replayed exactly what it missed. A
 * change is one row here, written once for every stream of the shard.
 *
 * The log speaks only for changes after its floor: the newest generation it trimmed, or, before
 * any trim, what the feed had announced before this shard's first change. A shard added by a
 * larger REGISTRY_SHARDS never saw the changes before it joined, and a stream that moved to it
 * must not be told it missed none of them.
 */
import type { CatalogEvent, ChangedList, ShardFrame } from './events.js';

/** Replay is bounded in count and age: enough to bridge a reconnect, not an archive. */
export const REPLAY_MAX_EVENTS = 100;
export const REPLAY_MAX_AGE_MS = 60 * 60 * 1000;

/** What a missed change that the log no longer holds may have touched: every list. */
const ALL_LISTS: ChangedList[] = ['prompts', 'skills'];

/** One notification for every list, at `generation`: what a stream gets when the log cannot say what it missed. */
const everyList = (generation: number): ShardFrame => ({
  t: 'event',
  event: { kind: 'prompts_list_changed', generation, lists: ALL_LISTS },
});

export class ReplayLog {
  constructor(private readonly storage: DurableObjectStorage) {
    const sql = storage.sql;
    sql.exec(
      'CREATE TABLE IF NOT EXISTS announced (id INTEGER PRIMARY KEY CHECK (id = 0), generation INTEGER NOT NULL)',
    );
    sql.exec('CREATE TABLE IF NOT EXISTS events (generation INTEGER PRIMARY KEY, lists TEXT NOT NULL, at INTEGER)');
    // The log's floor (the table's name is older than its second use): the newest generation trimmed
    // from the log, or the feed's announced generation before this shard's first change.
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
   * `after` is the generation the feed announced before this one: on the shard's first change it
   * becomes the floor. The rows written.
   */
  record(event: CatalogEvent, after: number): number {
    const sql = this.storage.sql;
    const lists = JSON.stringify(event.lists ?? ['prompts']);
    return this.storage.transactionSync(
      () =>
        // Before the first row only: a shard logging since before this floor existed keeps the fallback (floor()).
        sql.exec(
          'INSERT INTO trimmed (id, generation) SELECT 0, ? WHERE NOT EXISTS (SELECT 1 FROM events) ON CONFLICT (id) DO NOTHING',
          Math.min(after, event.generation - 1),
        ).rowsWritten +
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
   * What a stream resuming at `since` missed, oldest first. When the log does not hold all of it
   * (`since` below its floor, or older than the replay age), one event for every list instead:
   * what the missing changes touched is not known, and a list must not go unannounced.
   *
   * A shard that never announced a change cannot know what came before it joined: `published`,
   * the feed's announced generation (asked only then), past `since` gets the same one event.
   */
  missed(since: number, published: number): ShardFrame[] {
    const announced = this.announced();
    if (since < announced) return this.since(since);
    if (announced === 0 && published > since) return [everyList(published)];
    return [];
  }

  private since(since: number): ShardFrame[] {
    const sql = this.storage.sql;
    const rows = sql
      .exec<{ generation: number; lists: string; at: number | null }>(
        'SELECT generation, lists, at FROM events WHERE generation > ? ORDER BY generation',
        since,
      )
      .toArray();
    const held = rows.length > 0 && since >= this.floor() && (rows[0]!.at ?? 0) > Date.now() - REPLAY_MAX_AGE_MS;
    if (!held) return [everyList(this.announced())];
    return rows.map((r) => ({
      t: 'event',
      event: { kind: 'prompts_list_changed', generation: r.generation, lists: JSON.parse(r.lists) as ChangedList[] },
    }));
  }

  /**
   * The newest generation the log cannot speak for. A shard that logged changes before the floor
   * was kept, and never trimmed, has none stored: the change before its oldest row is the safe guess.
   */
  private floor(): number {
    const sql = this.storage.sql;
    const stored = sql.exec<{ generation: number }>('SELECT generation FROM trimmed').toArray()[0]?.generation;
    if (stored !== undefined) return stored;
    const oldest = sql.exec<{ g: number | null }>('SELECT min(generation) AS g FROM events').toArray()[0]?.g;
    return oldest == null ? 0 : oldest - 1;
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
