/**
 * How much of the versions table one answer holds (versions-table.ts reads them): every version of
 * every prompt is kept, so every read of many is a page, bounded in count and in record bytes.
 */
import type { VersionInfo } from './types.js';

/** Most version facts one name's answer lists (the newest); its history pages through the rest. */
export const MAX_VERSIONS_LISTED = 1_000;

/** What one page of a history may hold: versions, and (so a page fits in memory) bytes of record text. */
export const HISTORY_PAGE_MAX = 1_000;
export const HISTORY_PAGE_BYTES = 8 * 1_048_576;

/** What one page of a listing may hold, as a history page. */
export const LIST_PAGE_MAX = 1_000;
export const LIST_PAGE_BYTES = HISTORY_PAGE_BYTES;

export interface ListPage {
  /** Only names after this one (absent: from the first). */
  after?: string;
  limit: number;
}

export interface HistoryPage {
  /** Only versions older than this one (absent: from the newest). */
  before?: number;
  limit: number;
  /** Each version's facts without its record: a reader that shows only the facts (a version list) reads no text. */
  facts?: boolean;
}

/** A version as a history page holds it: its record (null for a deletion), absent on a page of facts. */
export type Versioned<R> = VersionInfo & { record?: R | null };

/** A history page: `next` is the `before` of the older page; `unknown` when the name has no version at all. */
export interface HistoryOf<R> {
  history: Versioned<R>[];
  next?: number;
  unknown?: true;
}
