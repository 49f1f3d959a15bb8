/**
 * How a row of the CatalogWriter's `versions` table (versions-table.ts) reads back: a stored
 * record, or a version's facts without its text.
 */
import type { VersionInfo } from './types.js';

export interface Stored<R> {
  record: R;
  version: number;
  generation: number;
  updatedAt: string;
}

export interface Row {
  name: string;
  version: number;
  generation: number;
  record: string | null;
  created_at: number;
  by: string | null;
  [k: string]: SqlStorageValue;
}

/** A version's facts without its text. */
export interface Facts {
  version: number;
  generation: number;
  created_at: number;
  by: string | null;
  deleted: number;
  [k: string]: SqlStorageValue;
}

export function infoOf(f: Facts): VersionInfo {
  return {
    version: f.version,
    generation: f.generation,
    createdAt: new Date(f.created_at).toISOString(),
    deleted: f.deleted === 1,
    by: f.by ?? null,
  };
}

export const toInfo = (r: Row): VersionInfo =>
  infoOf({
    version: r.version,
    generation: r.generation,
    created_at: r.created_at,
    by: r.by,
    deleted: r.record === null ? 1 : 0,
  });

export function toStored<R>(r: Row): Stored<R> {
  return {
    record: JSON.parse(r.record!) as R,
    version: r.version,
    generation: r.generation,
    updatedAt: new Date(r.created_at).toISOString(),
  };
}
