/**
 * Staged uploads of a prompt set too large for one admin request (docs/publishing.md, "Large
 * catalogs"): the parts wait here, in the CatalogWriter's SQLite, until one publish applies
 * them as a single change. One row per prompt, because a Durable Object's SQLite holds at most
 * 2 MB in a row and a prompt is at most MAX_PROMPT_BYTES. An upload lives an hour from its
 * opening; expired ones are dropped whenever an upload is opened or added to, so storage never
 * holds more than MAX_OPEN_UPLOADS of them (upload-limits.ts).
 */
import { utf8Length } from './arguments.js';
import { tooLarge, tooManyOpen, tooManyPrompts, UPLOAD_TTL_MS } from './upload-limits.js';

export interface UploadInfo {
  id: string;
  prompts: number;
  bytes: number;
  expiresAt: string;
  /** Who opened it (a principal id, 'admin' for ADMIN_TOKEN), so a stale one can be found and deleted. */
  by: string | null;
}

export type UploadRefusal = {
  ok: false;
  reason: 'not_found' | 'not_yours' | 'too_large' | 'too_many_prompts' | 'too_many_uploads';
  message: string;
};

interface Head {
  id: string;
  created_at: number;
  prompts: number;
  bytes: number;
  by: string | null;
  [k: string]: SqlStorageValue;
}

export const notOpen = (id: string): UploadRefusal => ({
  ok: false,
  reason: 'not_found',
  message: `No open upload "${id.slice(0, 64)}" (an upload expires an hour after it is opened, and a publish uses it up)`,
});

const info = (h: Head): UploadInfo => ({
  id: h.id,
  prompts: h.prompts,
  bytes: h.bytes,
  expiresAt: new Date(h.created_at + UPLOAD_TTL_MS).toISOString(),
  by: h.by,
});

export class UploadsTable {
  private readonly sql: SqlStorage;

  constructor(private readonly storage: DurableObjectStorage) {
    const sql = (this.sql = storage.sql);
    sql.exec(`CREATE TABLE IF NOT EXISTS uploads (
      id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, prompts INTEGER NOT NULL, bytes INTEGER NOT NULL, "by" TEXT)`);
    // A table made before uploads recorded who opened them gains the column, as versions does.
    if (!sql.exec("SELECT 1 FROM pragma_table_info('uploads') WHERE name = 'by'").toArray().length)
      sql.exec('ALTER TABLE uploads ADD COLUMN "by" TEXT');
    sql.exec(`CREATE TABLE IF NOT EXISTS upload_prompts (
      id TEXT NOT NULL, seq INTEGER NOT NULL, name TEXT NOT NULL, record TEXT NOT NULL,
      PRIMARY KEY (id, seq), UNIQUE (id, name))`);
  }

  /** The open upload `id`, or undefined when there is none (never opened, expired, used up). */
  private head(id: string, now: number): Head | undefined {
    const h = this.sql.exec<Head>('SELECT * FROM uploads WHERE id = ?', id).toArray()[0];
    return h && h.created_at + UPLOAD_TTL_MS > now ? h : undefined;
  }

  /** Drops every expired upload with its prompts. */
  private purge(now: number): void {
    const cutoff = now - UPLOAD_TTL_MS;
    this.sql.exec('DELETE FROM upload_prompts WHERE id IN (SELECT id FROM uploads WHERE created_at <= ?)', cutoff);
    this.sql.exec('DELETE FROM uploads WHERE created_at <= ?', cutoff);
  }

  /** The uploads open now, oldest first. */
  list(now: number): UploadInfo[] {
    this.purge(now);
    return this.sql.exec<Head>('SELECT * FROM uploads ORDER BY created_at, id').toArray().map(info);
  }

  open(now: number, by: string | undefined): { ok: true; upload: UploadInfo } | UploadRefusal {
    return this.storage.transactionSync(() => {
      this.purge(now);
      const { open, mine } = this.sql
        .exec<{ open: number; mine: number }>(
          'SELECT count(*) AS open, count(CASE WHEN "by" IS ? THEN 1 END) AS mine FROM uploads',
          by ?? null,
        )
        .one();
      const full = tooManyOpen(open, mine);
      if (full) return full;
      const head: Head = { id: crypto.randomUUID(), created_at: now, prompts: 0, bytes: 0, by: by ?? null };
      this.sql.exec(
        'INSERT INTO uploads (id, created_at, prompts, bytes, "by") VALUES (?, ?, 0, 0, ?)',
        head.id,
        now,
        head.by,
      );
      return { ok: true, upload: info(head) };
    });
  }

  /**
   * How many prompts `id` holds already (the position the next part's issues are counted from),
   * when it is open and `by` opened it: parts and the publish come from whoever opened it only, so
   * what a publish writes, and the author its versions record, are those of one principal.
   */
  count(id: string, now: number, by: string | undefined): number | UploadRefusal {
    const h = this.head(id, now);
    if (!h) return notOpen(id);
    if (h.by !== (by ?? null))
      return {
        ok: false,
        reason: 'not_yours',
        message: `Upload "${id.slice(0, 64)}" was opened by ${h.by ?? 'another principal'}: only its opener adds to it or publishes it (any admin may delete it)`,
      };
    return h.prompts;
  }

  /** Names of `names` the upload holds already. */
  held(id: string, names: readonly string[]): Set<string> {
    const held = new Set<string>();
    for (const name of names)
      if (this.sql.exec('SELECT 1 FROM upload_prompts WHERE id = ? AND name = ?', id, name).toArray().length)
        held.add(name);
    return held;
  }

  /** Adds validated, uniquely named prompts to the upload, all or none. */
  append(
    id: string,
    records: readonly { name: string }[],
    now: number,
  ): { ok: true; upload: UploadInfo } | UploadRefusal {
    return this.storage.transactionSync(() => {
      this.purge(now);
      const h = this.head(id, now);
      if (!h) return notOpen(id);
      const many = tooManyPrompts(h.prompts + records.length);
      if (many) return many;
      const texts = records.map((r) => JSON.stringify(r));
      const bytes = h.bytes + texts.reduce((n, t) => n + utf8Length(t), 0);
      const large = tooLarge(bytes);
      if (large) return large;
      texts.forEach((t, i) =>
        this.sql.exec(
          'INSERT INTO upload_prompts (id, seq, name, record) VALUES (?, ?, ?, ?)',
          id,
          h.prompts + i,
          records[i]!.name,
          t,
        ),
      );
      const next: Head = { ...h, prompts: h.prompts + records.length, bytes };
      this.sql.exec('UPDATE uploads SET prompts = ?, bytes = ? WHERE id = ?', next.prompts, bytes, id);
      return { ok: true, upload: info(next) };
    });
  }

  /** The upload's prompts in the order they were added. */
  records(id: string, now: number): unknown[] | UploadRefusal {
    if (!this.head(id, now)) return notOpen(id);
    return this.sql
      .exec<{ record: string }>('SELECT record FROM upload_prompts WHERE id = ? ORDER BY seq', id)
      .toArray()
      .map((r) => JSON.parse(r.record) as unknown);
  }

  /** Forgets the upload; false when there was none open (an expired one is forgotten too, and is not open). */
  drop(id: string, now: number): boolean {
    const open = this.head(id, now) !== undefined;
    this.sql.exec('DELETE FROM upload_prompts WHERE id = ?', id);
    this.sql.exec('DELETE FROM uploads WHERE id = ?', id);
    return open;
  }
}
