/**
 * A publish in parts (docs/publishing.md, "Large catalogs"): a set that does not fit in one admin
 * request is uploaded part by part, each checked as it arrives, and then published as one
 * change, exactly as if it had come in one request. Checking each part on arrival names a bad
 * prompt by its position in the whole upload while the publisher still has it at hand; the whole
 * set is checked again when it is published.
 */
import type { Issue, PromptRecord } from './types.js';
import { notOpen, UploadsTable, type UploadInfo, type UploadRefusal } from './uploads-table.js';
import { validateSet } from './validate.js';
import type { VersionedWrites, WriteResult } from './versioned-writes.js';
import { PROMPT_ROWS } from './versions-table.js';

export type UploadResult =
  { ok: true; upload: UploadInfo } | UploadRefusal | { ok: false; reason: 'invalid'; issues: Issue[] };

export class StagedPublish {
  private readonly uploads: UploadsTable;
  /**
   * Uploads whose publish is under way (reads and other calls of the writer run meanwhile: write-lock.ts).
   * A part sent now would not be in it, and a delete could not stop it, so both are refused.
   */
  private readonly publishing = new Set<string>();

  constructor(
    storage: DurableObjectStorage,
    private readonly writes: VersionedWrites,
  ) {
    this.uploads = new UploadsTable(storage);
  }

  open(by?: string): UploadResult {
    return this.uploads.open(Date.now(), by);
  }

  list(): UploadInfo[] {
    return this.uploads.list(Date.now());
  }

  /** One part: every prompt valid and named once in the whole upload, or nothing of the part is kept. */
  add(id: string, prompts: unknown[], by: string | undefined): UploadResult {
    const now = Date.now();
    if (this.publishing.has(id)) return { ...notOpen(id), message: `Upload "${id.slice(0, 64)}" is being published` };
    const offset = this.uploads.count(id, now, by);
    if (typeof offset !== 'number') return offset;
    const label = (i: number) => `prompts[${offset + i}]`;
    const issues = validateSet(prompts, label);
    if (issues.length) return { ok: false, reason: 'invalid', issues };
    const records = prompts as PromptRecord[];
    const held = this.uploads.held(
      id,
      records.map((r) => r.name),
    );
    records.forEach((r, i) => {
      if (held.has(r.name))
        issues.push({
          path: `${label(i)}: name`,
          message: `duplicate prompt name "${r.name}" (an earlier part of this upload has it)`,
        });
    });
    if (issues.length) return { ok: false, reason: 'invalid', issues };
    return this.uploads.append(id, records, now);
  }

  /**
   * Publishes the upload as one set. A dry run leaves it open (to be published next); a publish
   * that answers uses it up whatever its outcome. A part or a delete sent while it runs is refused
   * as for an upload not open: no part is dropped unseen, and no delete claims to have stopped it.
   * A publish that throws (the object reset, the KV write failed after the history was recorded)
   * leaves it open: its 503 says the request is safe to repeat, and the repeat finds the set
   * recorded and publishes it without new versions.
   */
  async publish(id: string, opts: { prune: boolean; dryRun: boolean; by?: string }): Promise<WriteResult> {
    const now = Date.now();
    const held = this.publishing.has(id) ? notOpen(id) : this.uploads.count(id, now, opts.by);
    const records = typeof held === 'number' ? this.uploads.records(id, now) : held;
    if (!Array.isArray(records))
      return {
        ok: false,
        reason: records.reason === 'not_yours' ? 'not_yours' : 'not_found',
        message: records.message,
      };
    const issues = validateSet(records);
    if (issues.length) {
      if (!opts.dryRun) this.uploads.drop(id, now);
      return { ok: false, reason: 'invalid', issues };
    }
    if (opts.dryRun) return this.writes.apply(PROMPT_ROWS, records as PromptRecord[], opts.prune, true, opts.by);
    this.publishing.add(id);
    try {
      const result = await this.writes.apply(PROMPT_ROWS, records as PromptRecord[], opts.prune, false, opts.by);
      this.uploads.drop(id, Date.now());
      return result;
    } finally {
      this.publishing.delete(id);
    }
  }

  /** False when there was no such upload open, or its publish is under way (the publish decides what becomes of it). */
  drop(id: string): boolean {
    return !this.publishing.has(id) && this.uploads.drop(id, Date.now());
  }
}
