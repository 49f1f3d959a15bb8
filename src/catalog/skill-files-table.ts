/**
 * The skill files the CatalogWriter knows KV holds, by digest with their size, in its SQLite
 * (docs/storage-schema.md). A publish checks its files here, not in KV: one invocation may make at
 * most 1,000 KV operations (Cloudflare's KV limits; Miniflare does not enforce them), and a set may
 * name up to MAX_DIGESTS files. The upload route adds a row once the bytes are stored; a file
 * stored without one (uploaded before this table, or its row lost to a failed call) is looked up in
 * KV, a bounded number per call, and added then. Bytes by digest are never deleted, so a row never
 * goes stale.
 */
import { storedSizes } from './skills/file-store.js';

/**
 * Most files one call looks up in KV: each costs one operation, or three for a file stored before
 * its size was kept beside it (file-store.ts), so at most 750. A publish's own call adds two
 * snapshot publishes at most (a catch-up and its write, snapshot-sync.ts), each a generation read,
 * three puts retried up to three times, a key listing and 50 deletes: 64. Within the 1,000.
 */
export const KV_LOOKUPS_PER_CALL = 250;

/** Sizes by digest (undefined: not in KV), and the digests left unlooked-up past the bound. */
export interface FileSizes {
  sizes: Map<string, number | undefined>;
  unchecked: string[];
}

export class SkillFilesTable {
  constructor(
    private readonly sql: SqlStorage,
    private readonly kv: KVNamespace,
  ) {
    sql.exec('CREATE TABLE IF NOT EXISTS skill_files (digest TEXT PRIMARY KEY, size INTEGER NOT NULL)');
  }

  /** The upload route stored these bytes under their digest. */
  stored(digest: string, size: number): void {
    this.sql.exec('INSERT OR REPLACE INTO skill_files VALUES (?, ?)', digest, size);
  }

  /** Each digest's stored size: from the table, else from KV up to KV_LOOKUPS_PER_CALL of them. */
  async sizes(digests: readonly string[]): Promise<FileSizes> {
    const unique = [...new Set(digests)];
    // One query for the whole set (up to MAX_DIGESTS), not one per digest.
    const known = this.sql.exec<{ digest: string; size: number }>(
      'SELECT digest, size FROM skill_files WHERE digest IN (SELECT value FROM json_each(?))',
      JSON.stringify(unique),
    );
    const found = new Map(Array.from(known, (r) => [r.digest, r.size]));
    const sizes = new Map<string, number | undefined>();
    const unknown: string[] = [];
    for (const d of unique) {
      const size = found.get(d);
      if (size === undefined) unknown.push(d);
      else sizes.set(d, size);
    }
    const looked = unknown.slice(0, KV_LOOKUPS_PER_CALL);
    for (const [d, size] of await storedSizes(this.kv, looked)) {
      sizes.set(d, size);
      if (size !== undefined) this.stored(d, size);
    }
    return { sizes, unchecked: unknown.slice(KV_LOOKUPS_PER_CALL) };
  }

  /** Which digests are not known to be in KV: absent there, or past this call's lookups (uploading again is harmless). */
  async missing(digests: readonly string[]): Promise<string[]> {
    const { sizes } = await this.sizes(digests);
    // An unchecked digest has no size either.
    return [...new Set(digests)].filter((d) => sizes.get(d) === undefined);
  }
}
