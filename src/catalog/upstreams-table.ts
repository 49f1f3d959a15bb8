/**
 * The upstreams' last listings, in the CatalogWriter object's SQLite: one
 * row per upstream, its UpstreamState as JSON. Only the writer reads and
 * writes it, under its one-write-at-a-time lock; the snapshot in KV carries
 * the rows of the upstreams still configured.
 */
import type { UpstreamState } from './types.js';

export class UpstreamsTable {
  constructor(private readonly sql: SqlStorage) {
    sql.exec('CREATE TABLE IF NOT EXISTS upstreams (id TEXT PRIMARY KEY, state TEXT NOT NULL)');
  }

  /** Every stored upstream, by id (not the configured order: upstream-listings.ts puts them in it). */
  all(): UpstreamState[] {
    return this.sql
      .exec<{ state: string }>('SELECT state FROM upstreams ORDER BY id')
      .toArray()
      .map((r) => JSON.parse(r.state) as UpstreamState);
  }

  ids(): string[] {
    return this.sql
      .exec<{ id: string }>('SELECT id FROM upstreams')
      .toArray()
      .map((r) => r.id);
  }

  get(id: string): UpstreamState | undefined {
    const row = this.sql.exec<{ state: string }>('SELECT state FROM upstreams WHERE id = ?', id).toArray()[0];
    return row ? (JSON.parse(row.state) as UpstreamState) : undefined;
  }

  save(state: UpstreamState): void {
    this.sql.exec('INSERT OR REPLACE INTO upstreams VALUES (?, ?)', state.id, JSON.stringify(state));
  }

  delete(id: string): void {
    this.sql.exec('DELETE FROM upstreams WHERE id = ?', id);
  }
}
