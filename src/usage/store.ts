/**
 * UsageStore: the one Durable Object that keeps usage counts (docs/storage-schema.md), in SQLite as
 * hourly rows. Isolates send their whole tally in one `add` per flush interval (usage/flush.ts), so
 * this object sees one call per isolate per interval, never one per request. Old hours are pruned
 * on write, at most once per hour, before the write: a store too full to write must still shed them.
 */
import { DurableObject } from 'cloudflare:workers';
import { configOf } from '../lib/config.js';
import { log } from '../lib/log.js';
import { HourClients, type StoredHour } from './hour-clients.js';

/** Epoch ms in an hour bucket (bucket = floor(ms / HOUR_MS)). */
export const HOUR_MS = 3_600_000;

/** One counted tuple: [hour, method, prompt, client, era, outcome, count]. */
export type UsageTuple = [number, string, string, string, string, string, number];
/** One error class count: [hour, class, count]. */
export type ErrorTuple = [number, string, number];

/** What one isolate counted between two flushes. */
export interface UsageBatch {
  readonly usage: UsageTuple[];
  readonly errors: ErrorTuple[];
}

/** A batch as sent: its id (isolate id and sequence) makes a resent batch land once. */
export interface SentBatch {
  readonly id: string;
  readonly batch: UsageBatch;
}

/** Distinct client labels one hour keeps; later ones are counted as `(other)` (hour-clients.ts). */
export const MAX_CLIENTS_PER_HOUR = 1_000;
/**
 * Rows one hour keeps before new ones are counted under client `(other)` (hour-clients.ts): with the
 * label bound alone, labels × prompts could reach millions of rows an hour, kept for months.
 */
export const MAX_ROWS_PER_HOUR = 10_000;

/** One usage row by its key, in the primary key's order. */
const ROW_KEY = 'hour = ? AND method = ? AND prompt = ? AND client = ? AND era = ? AND outcome = ?';

/** How long the store remembers the ids of batches it applied (a resend comes within minutes). */
const BATCH_ID_MS = 24 * HOUR_MS;

/** A grouped count as the store answers it; `key` is the prompt or the client, as asked. */
export interface StoredCount {
  key: string;
  method: string;
  era: string;
  outcome: string;
  count: number;
}

export class UsageStore extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  /** The hour this instance last pruned in; pruning again within it finds nothing. */
  private prunedHour = -1;
  private readonly clients = new HourClients(MAX_CLIENTS_PER_HOUR, MAX_ROWS_PER_HOUR, (hour): StoredHour => {
    const byClient = this.sql
      .exec<{ client: string; n: number }>(
        'SELECT client, COUNT(*) AS n FROM usage WHERE hour = ? GROUP BY client',
        hour,
      )
      .toArray();
    return { labels: byClient.map((r) => r.client), rows: byClient.reduce((sum, r) => sum + r.n, 0) };
  });

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS usage (
      hour INTEGER NOT NULL, method TEXT NOT NULL, prompt TEXT NOT NULL, client TEXT NOT NULL,
      era TEXT NOT NULL, outcome TEXT NOT NULL, count INTEGER NOT NULL,
      PRIMARY KEY (hour, method, prompt, client, era, outcome))`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS errors (
      hour INTEGER NOT NULL, class TEXT NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (hour, class))`);
    this.sql.exec('CREATE TABLE IF NOT EXISTS batches (id TEXT PRIMARY KEY, at INTEGER NOT NULL)');
    // The hourly prune deletes by age: without this it reads every id of the last day, holding the one store.
    this.sql.exec('CREATE INDEX IF NOT EXISTS batches_at ON batches (at)');
  }

  /**
   * Adds one flush's batches, all or nothing (one transaction). A batch whose id was applied before is
   * skipped: a flush whose answer was lost after the commit resends it, and it must not count twice.
   */
  async add(batches: SentBatch[]): Promise<void> {
    const now = Date.now();
    try {
      this.prune(now);
    } catch (e) {
      // Counting goes on: the prune is tried again on the next write.
      log.warn('pruning old usage failed', { error: String(e) });
    }
    try {
      this.ctx.storage.transactionSync(() => {
        for (const { id, batch } of batches) {
          if (this.sql.exec('SELECT 1 FROM batches WHERE id = ?', id).toArray().length) continue;
          this.sql.exec('INSERT INTO batches VALUES (?, ?)', id, now);
          this.apply(batch, this.oldestKept(now));
        }
      });
    } catch (e) {
      this.clients.forget();
      throw e;
    }
  }

  /** The oldest hour retention keeps at `now`: a row of an older one is pruned, or never written. */
  private oldestKept(now: number): number {
    return Math.floor(now / HOUR_MS) - configOf(this.env).usageRetentionDays * 24;
  }

  private apply(batch: UsageBatch, oldest: number): void {
    for (const [hour, method, prompt, client, era, outcome, count] of batch.usage) {
      if (hour < oldest) continue;
      const row = [hour, method, prompt] as const;
      const stored = () =>
        this.sql.exec(`SELECT 1 FROM usage WHERE ${ROW_KEY}`, ...row, client, era, outcome).next().done === false;
      const label = this.clients.admit(hour, client, stored);
      const [after] = this.sql
        .exec<{ count: number }>(
          `INSERT INTO usage VALUES (?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (hour, method, prompt, client, era, outcome) DO UPDATE SET count = count + excluded.count
             RETURNING count`,
          ...row,
          label,
          era,
          outcome,
          count,
        )
        .toArray();
      // Counts are positive: a row whose count is this call's alone is new.
      if (after?.count === count) this.clients.added(hour, label);
    }
    for (const [hour, cls, count] of batch.errors)
      if (hour >= oldest)
        this.sql.exec(
          'INSERT INTO errors VALUES (?, ?, ?) ON CONFLICT (hour, class) DO UPDATE SET count = count + excluded.count',
          hour,
          cls,
          count,
        );
  }

  private prune(now: number): void {
    const hour = Math.floor(now / HOUR_MS);
    if (hour === this.prunedHour) return;
    const oldest = this.oldestKept(now);
    this.sql.exec('DELETE FROM usage WHERE hour < ?', oldest);
    this.sql.exec('DELETE FROM errors WHERE hour < ?', oldest);
    this.sql.exec('DELETE FROM batches WHERE at < ?', now - BATCH_ID_MS);
    // Only once it went through: a prune that failed is tried again on the next write.
    this.prunedHour = hour;
  }

  /**
   * Counts from `sinceHour` on, grouped by prompt or client, method, era and outcome, largest first:
   * at most `limit` groups, since client labels come from clients (up to MAX_CLIENTS_PER_HOUR new
   * ones an hour) and a month of them must not be one answer.
   */
  async usage(sinceHour: number, by: 'prompt' | 'client', limit: number): Promise<StoredCount[]> {
    const key = by === 'client' ? 'client' : 'prompt';
    return this.sql
      .exec<{ key: string; method: string; era: string; outcome: string; count: number }>(
        `SELECT ${key} AS key, method, era, outcome, SUM(count) AS count FROM usage WHERE hour >= ?
         GROUP BY ${key}, method, era, outcome ORDER BY count DESC, key, method, era, outcome LIMIT ?`,
        sinceHour,
        limit,
      )
      .toArray();
  }

  /**
   * `usage`'s groups with every count from `sinceHour` on by method and outcome (the totals, whatever
   * the limit leaves out), read in one call, so no flush lands between them.
   */
  async report(
    sinceHour: number,
    by: 'prompt' | 'client',
    limit: number,
  ): Promise<{ rows: StoredCount[]; totals: { method: string; outcome: string; count: number }[] }> {
    const totals = this.sql
      .exec<{ method: string; outcome: string; count: number }>(
        'SELECT method, outcome, SUM(count) AS count FROM usage WHERE hour >= ? GROUP BY method, outcome',
        sinceHour,
      )
      .toArray();
    return { rows: await this.usage(sinceHour, by, limit), totals };
  }

  /** Uses (prompts/get, and the mirror's tools/call) per prompt and UTC day (day = floor(hour / 24)), from `sinceHour` on. */
  async daily(sinceHour: number): Promise<{ prompt: string; day: number; count: number }[]> {
    return this.sql
      .exec<{ prompt: string; day: number; count: number }>(
        `SELECT prompt, hour / 24 AS day, SUM(count) AS count FROM usage
         WHERE hour >= ? AND method IN ('prompts/get', 'tools/call') GROUP BY prompt, day`,
        sinceHour,
      )
      .toArray();
  }

  /** Error counts by class from `sinceHour` on. */
  async errors(sinceHour: number): Promise<{ class: string; count: number }[]> {
    return this.sql
      .exec<{ class: string; count: number }>(
        'SELECT class, SUM(count) AS count FROM errors WHERE hour >= ? GROUP BY class',
        sinceHour,
      )
      .toArray();
  }
}
