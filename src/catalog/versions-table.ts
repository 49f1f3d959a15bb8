/**
 * Every version of every prompt and skill, in the CatalogWriter's SQLite (docs/storage-schema.md).
 * Both live in one `versions` table, so a change of either is one transaction and one generation;
 * skill rows are named `skill:<name>`, which no prompt name can be (`:` is not allowed in one).
 * The writer decides when to write; this knows how rows are named, read and added.
 */
import type { ChangedList } from '../session/events.js';
import { utf8Length } from './arguments.js';
import type { VersionInfo } from './types.js';
import { historyPage } from './version-history.js';
import { infoOf, toStored, type Facts, type Row, type Stored } from './versions-rows.js';

import {
  LIST_PAGE_BYTES,
  MAX_VERSIONS_LISTED,
  type HistoryOf,
  type HistoryPage,
  type ListPage,
} from './version-pages.js';

export type { Stored } from './versions-rows.js';
export * from './version-pages.js';

/** What a row holds: prompts or skills. */
export interface RowKind {
  readonly prefix: string;
  readonly noun: string;
  /** The list a change of this kind is announced as (session/events.ts). */
  readonly list: ChangedList;
  /** SQL: whether the row named by `col` is of this kind. */
  readonly where: (col: string) => string;
}

export const PROMPT_ROWS: RowKind = {
  prefix: '',
  noun: 'prompt',
  list: 'prompts',
  where: (c) => `substr(${c}, 1, 6) <> 'skill:'`,
};

export const SKILL_ROWS: RowKind = {
  prefix: 'skill:',
  noun: 'skill',
  list: 'skills',
  where: (c) => `substr(${c}, 1, 6) = 'skill:'`,
};

export class VersionsTable {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS versions (
      name TEXT NOT NULL, version INTEGER NOT NULL, generation INTEGER NOT NULL,
      record TEXT, created_at INTEGER NOT NULL, PRIMARY KEY (name, version))`);
    // Objects created before versions recorded their author gain the column; their old rows read null.
    if (!sql.exec("SELECT 1 FROM pragma_table_info('versions') WHERE name = 'by'").toArray().length)
      sql.exec('ALTER TABLE versions ADD COLUMN "by" TEXT');
  }

  /** The latest version of every record of this kind that is not deleted, by name. */
  latest<R>(kind: RowKind): Stored<R>[] {
    return this.latestRows(kind)
      .toArray()
      .map((r) => toStored<R>(r));
  }

  /**
   * The stored text of `latest`, by name (without the kind's prefix), parsing nothing: what a
   * write compares against. A write of the whole catalog holds the old set as these strings
   * rather than as objects (bench/RESULTS.md, "Memory").
   */
  latestTexts(kind: RowKind): Map<string, string> {
    const out = new Map<string, string>();
    for (const r of this.latestRows(kind)) out.set(r.name.slice(kind.prefix.length), r.record!);
    return out;
  }

  /** A cursor over `latest`'s rows, by name, after `after` (the name without the kind's prefix). */
  private latestRows(kind: RowKind, after = ''): SqlStorageCursor<Row> {
    return this.sql.exec<Row>(
      `SELECT v.* FROM versions v JOIN (SELECT name, MAX(version) AS version FROM versions
         WHERE name > ? AND ${kind.where('name')} GROUP BY name) l
       ON v.name = l.name AND v.version = l.version
       WHERE v.record IS NOT NULL ORDER BY v.name`,
      kind.prefix + after,
    );
  }

  /**
   * A page of `latest`: by name after `page.after`, at most `page.limit` records and no more than
   * LIST_PAGE_BYTES of record text (at least one), so a catalog of any size is read in pages that
   * fit in memory. `next` is the `after` of the next page, when there is one.
   */
  latestPage<R>(kind: RowKind, page: ListPage): { records: Stored<R>[]; next?: string } {
    const rows = this.latestRows(kind, page.after);
    const records: Stored<R>[] = [];
    let bytes = 0;
    let last: string | undefined;
    // A cursor: rows past the page are never read.
    for (const r of rows) {
      bytes += utf8Length(r.record!);
      if (records.length === page.limit || (records.length > 0 && bytes > LIST_PAGE_BYTES))
        return { records, next: last!.slice(kind.prefix.length) };
      records.push(toStored<R>(r));
      last = r.name;
    }
    return { records };
  }

  /**
   * One name: its current record (null once deleted or never written) and the facts of its newest
   * MAX_VERSIONS_LISTED versions, oldest first, with how many older ones there are (the history
   * pages through them). Facts only: the versions' text may add up to many megabytes over a
   * prompt's life, so only the newest record is read.
   */
  one<R>(kind: RowKind, name: string): { latest: Stored<R> | null; versions: VersionInfo[]; older: number } {
    const key = kind.prefix + name;
    const facts = this.sql
      .exec<Facts>(
        'SELECT version, generation, created_at, "by", record IS NULL AS deleted FROM versions WHERE name = ? ORDER BY version DESC LIMIT ?',
        key,
        MAX_VERSIONS_LISTED,
      )
      .toArray()
      .reverse();
    const first = facts[0];
    const older = first
      ? this.sql
          .exec<{ n: number }>('SELECT COUNT(*) AS n FROM versions WHERE name = ? AND version < ?', key, first.version)
          .one().n
      : 0;
    const last = facts.at(-1);
    const latest =
      last && !last.deleted
        ? this.sql.exec<Row>('SELECT * FROM versions WHERE name = ? AND version = ?', key, last.version).one()
        : undefined;
    return { latest: latest ? toStored<R>(latest) : null, versions: facts.map(infoOf), older };
  }

  /** One page of a name's versions, oldest first, with their records or facts alone (version-history.ts). */
  history<R>(kind: RowKind, name: string, page: HistoryPage): HistoryOf<R> {
    return historyPage<R>(this.sql, kind.prefix + name, page);
  }

  /** One version's record, or undefined (no such version, or a deletion). */
  record<R>(kind: RowKind, name: string, version: number): R | undefined {
    const row = this.sql
      .exec<Row>('SELECT * FROM versions WHERE name = ? AND version = ?', kind.prefix + name, version)
      .toArray()[0];
    return row?.record ? (JSON.parse(row.record) as R) : undefined;
  }

  /**
   * Adds the next version of each name (a null record marks a deletion); call inside the writer's
   * transaction. A Map, not an object: a prompt may be named `__proto__` or `constructor`.
   */
  add(
    kind: RowKind,
    written: [string, string | null][],
    generation: number,
    by: string | undefined,
  ): Map<string, number> {
    const now = Date.now();
    const versions = new Map<string, number>();
    for (const [name, record] of written) {
      const row = kind.prefix + name;
      const v =
        (this.sql.exec<{ v: number | null }>('SELECT MAX(version) AS v FROM versions WHERE name = ?', row).one().v ??
          0) + 1;
      versions.set(name, v);
      this.sql.exec(
        'INSERT INTO versions (name, version, generation, record, created_at, "by") VALUES (?, ?, ?, ?, ?, ?)',
        row,
        v,
        generation,
        record,
        now,
        by ?? null,
      );
    }
    return versions;
  }
}
