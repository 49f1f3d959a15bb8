/**
 * One name's history read from the versions table in pages (versions-table.ts `history` answers
 * with it): its versions with their records, or their facts alone. It stands apart because paging
 * through every version a name ever had is a reading of its own, beside how rows are named, added
 * and read as the current set.
 */
import { utf8Length } from './arguments.js';
import type { VersionInfo } from './types.js';
import { HISTORY_PAGE_BYTES, type HistoryOf, type HistoryPage, type Versioned } from './version-pages.js';
import { infoOf, toInfo, type Facts, type Row } from './versions-rows.js';

/**
 * One page of a name's versions with their full records (null for a deletion), oldest first: the
 * newest `limit` before version `before`, and no more than HISTORY_PAGE_BYTES of record text (at
 * least one version). `next` is the `before` of the older page, when there is one. `key`: the row
 * name, with its kind's prefix.
 */
export function historyPage<R>(sql: SqlStorage, key: string, page: HistoryPage): HistoryOf<R> {
  const got = page.facts ? factsPage(sql, key, page) : recordsPage<R>(sql, key, page);
  // An empty page says nothing of the name (`?before=1`): a name never written is the caller's 404.
  if (got.history.length || sql.exec('SELECT 1 FROM versions WHERE name = ? LIMIT 1', key).toArray().length) return got;
  return { history: [], unknown: true };
}

function recordsPage<R>(sql: SqlStorage, key: string, page: HistoryPage): { history: Versioned<R>[]; next?: number } {
  const rows = sql.exec<Row>(
    'SELECT * FROM versions WHERE name = ? AND version < ? ORDER BY version DESC',
    key,
    page.before ?? Number.MAX_SAFE_INTEGER,
  );
  const out: Versioned<R>[] = [];
  let bytes = 0;
  // A cursor: rows past the page are never read.
  for (const r of rows) {
    bytes += r.record === null ? 0 : utf8Length(r.record);
    if (out.length === page.limit || (out.length > 0 && bytes > HISTORY_PAGE_BYTES))
      return { history: out.reverse(), next: out[0]!.version };
    out.push({ ...toInfo(r), record: r.record === null ? null : (JSON.parse(r.record) as R) });
  }
  return { history: out.reverse() };
}

/** A history page of facts alone (`record` absent): no text is read, so only `limit` bounds it. */
function factsPage(sql: SqlStorage, key: string, page: HistoryPage): { history: VersionInfo[]; next?: number } {
  const facts = sql
    .exec<Facts>(
      'SELECT version, generation, created_at, "by", record IS NULL AS deleted FROM versions WHERE name = ? AND version < ? ORDER BY version DESC LIMIT ?',
      key,
      page.before ?? Number.MAX_SAFE_INTEGER,
      page.limit + 1,
    )
    .toArray();
  const shown = facts.slice(0, page.limit).reverse().map(infoOf);
  return facts.length > page.limit ? { history: shown, next: shown[0]!.version } : { history: shown };
}
