/**
 * CatalogWriter: the single writer of the prompt catalog (one Durable Object).
 *
 * KV has no compare-and-set, so every write goes through this object, one
 * at a time in arrival order (write-lock.ts, versioned-writes.ts): validated, recorded as new
 * versions in SQLite, then written to KV and announced, with a dirty mark and
 * a retry alarm so a failure half-way is finished later (snapshot-sync.ts).
 * Prompt reads come from KV; only API-key lookups (memoised for
 * KEY_RECHECK_MS) and cold upstream listings reach this object from a request,
 * and reads never wait for a write in progress.
 */
import type { ListReport } from './upstreams/report.js';
import { CatalogReads } from './catalog-reads.js';
import type { CatalogSnapshot, PromptRecord, SkillRecord, UpstreamState } from './types.js';
import { publishableSkills } from './skills/publishable.js';
import { validateSkill } from './skills/validate.js';
import { PROMPT_ROWS, SKILL_ROWS } from './versions-table.js';
import { VersionedWrites, type WriteResult } from './versioned-writes.js';
import { KeysTable, type CreateKeyResult, type KeyInfo, type KeyRecord } from './keys-table.js';
import { UpstreamsTable } from './upstreams-table.js';
import { UpstreamListings } from './upstream-listings.js';
import { SkillFilesTable } from './skill-files-table.js';
import { SnapshotSync } from './snapshot-sync.js';
import { StagedPublish, type UploadResult } from './staged-publish.js';
import type { UploadInfo } from './uploads-table.js';
import { validatePrompt, validateSet } from './validate.js';
import { WriteLock } from './write-lock.js';
import { log } from '../lib/log.js';

export type { Stored } from './versions-table.js';
export type { StoredPrompt } from './catalog-reads.js';
export type { WriteResult } from './versioned-writes.js';

/** Its reads of prompts and skills are inherited (catalog-reads.ts); the rest is here. */
export class CatalogWriter extends CatalogReads {
  private readonly keys: KeysTable;
  protected readonly sync: SnapshotSync;
  private readonly writes: VersionedWrites;
  private readonly listings: UpstreamListings;
  private readonly staged: StagedPublish;
  private readonly files: SkillFilesTable;
  private readonly lock = new WriteLock();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    this.keys = new KeysTable(sql);
    this.files = new SkillFilesTable(sql, env.PROMPTS);
    const upstreamRows = new UpstreamsTable(sql);
    this.sync = new SnapshotSync(ctx, env, async () => ({
      prompts: (await this.current()).map((p) => p.record),
      skills: this.versions.latest<SkillRecord>(SKILL_ROWS).map((s) => s.record),
      // What each isolate loads: the skipped prompts are the operator's, read from the writer (/status).
      upstreams: (await this.upstreams()).map(({ skipped: _, ...u }) => u),
    }));
    this.writes = new VersionedWrites(this.versions, this.sync, (fn) => this.mutate(fn));
    this.staged = new StagedPublish(ctx.storage, this.writes);
    this.listings = new UpstreamListings(env, ctx.storage, upstreamRows, this.sync, (fn) => this.mutate(fn));
  }

  createKey(body: unknown, createdBy: string): Promise<CreateKeyResult> {
    return this.keys.create(body, createdBy);
  }

  async listKeys(): Promise<{ keys: KeyInfo[]; omitted: number }> {
    return this.keys.list();
  }

  async revokeKey(id: string): Promise<KeyInfo | undefined> {
    return this.keys.revoke(id);
  }

  async keyByDigest(hash: string): Promise<KeyRecord | undefined> {
    return this.keys.byDigest(hash);
  }

  /** Every configured upstream's last listing and health. */
  async upstreams(): Promise<UpstreamState[]> {
    return this.listings.upstreams();
  }

  /** Fresh listings (or failures) of some upstreams, applied as one change. */
  async upstreamsReported(reports: ListReport[]): Promise<{ changed: boolean; snapshot?: CatalogSnapshot }> {
    return this.listings.upstreamsReported(reports);
  }

  /** Drops the listings of upstreams no longer configured and re-guards the rest, announcing the change. */
  async reconcileUpstreams(): Promise<{ removed: string[] }> {
    return this.listings.reconcileUpstreams();
  }

  /** The admin API's upstream list (`null`: the UPSTREAMS var), which this object guards listings by from now on. */
  async setUpstreams(raw: string | null): Promise<{ removed: string[] }> {
    return this.listings.setUpstreams(raw);
  }

  /** A whole set, atomically; with `prune` the prompts missing from it are deleted. `dryRun`: the diff only. */
  async publishSet(prompts: unknown[], opts: { prune: boolean; dryRun: boolean; by?: string }): Promise<WriteResult> {
    const issues = validateSet(prompts);
    if (issues.length) return { ok: false, reason: 'invalid', issues };
    return this.writes.apply(PROMPT_ROWS, prompts as PromptRecord[], opts.prune, opts.dryRun, opts.by);
  }

  // A set too large for one request, published in parts (staged-publish.ts).
  async openUpload(by?: string): Promise<UploadResult> {
    return this.staged.open(by);
  }

  async uploads(): Promise<UploadInfo[]> {
    return this.staged.list();
  }

  async addToUpload(id: string, prompts: unknown[], by: string): Promise<UploadResult> {
    return this.staged.add(id, prompts, by);
  }

  async publishUpload(id: string, opts: { prune: boolean; dryRun: boolean; by?: string }): Promise<WriteResult> {
    return this.staged.publish(id, opts);
  }

  async dropUpload(id: string): Promise<boolean> {
    return this.staged.drop(id);
  }

  /** The upload route stored a skill file's bytes under their digest (skill-files-table.ts). */
  async skillFileStored(digest: string, size: number): Promise<void> {
    this.files.stored(digest, size);
  }

  /** Which of these digests the gateway does not know it holds: a client uploads only those. */
  async missingSkillFiles(digests: string[]): Promise<string[]> {
    return this.files.missing(digests);
  }

  /** Skills, like publishSet; every file a skill names must be in KV by its digest already (no bytes missing). */
  async publishSkills(skills: unknown[], opts: { prune: boolean; dryRun: boolean; by?: string }): Promise<WriteResult> {
    const checked = await publishableSkills((d) => this.files.sizes(d), skills, opts.dryRun);
    if (!checked.ok) return checked;
    return this.writes.apply(SKILL_ROWS, checked.records, opts.prune, opts.dryRun, opts.by);
  }

  /** `by`: who writes (recorded in the history), here and in remove and rollback. */
  async put(record: unknown, by?: string): Promise<WriteResult> {
    const issues = validatePrompt(record);
    if (issues.length) return { ok: false, reason: 'invalid', issues };
    return this.writes.apply(PROMPT_ROWS, [record as PromptRecord], false, false, by);
  }

  async remove(name: string, by?: string): Promise<WriteResult> {
    return this.writes.remove(PROMPT_ROWS, name, by);
  }

  async removeSkill(name: string, by?: string): Promise<WriteResult> {
    return this.writes.remove(SKILL_ROWS, name, by);
  }

  /** Restores the exact text of an earlier version as a new version. */
  async rollback(name: string, version: number, by?: string): Promise<WriteResult> {
    return this.writes.rollback(PROMPT_ROWS, name, version, validatePrompt, by);
  }

  /** Restores an earlier skill version; its files are still in KV (bytes by digest are never deleted). */
  async rollbackSkill(name: string, version: number, by?: string): Promise<WriteResult> {
    return this.writes.rollback(SKILL_ROWS, name, version, (r) => validateSkill(r), by);
  }

  override async alarm(): Promise<void> {
    await this.lock.run(() => this.sync.resyncIfDirty());
  }

  /**
   * One write under the lock (write-lock.ts), with KV brought up to date first. A catch-up that fails
   * does not stop the write: it publishes a newer snapshot itself (with the pending change's lists),
   * and may be the very write that makes the catalog publishable again (one that shrinks it).
   */
  private mutate<T>(fn: () => Promise<T>): Promise<T> {
    return this.lock.run(async () => {
      await this.sync.resyncIfDirty().catch((e: unknown) => {
        log.warn('catalog catch-up failed; the write goes ahead', { error: String(e) });
      });
      return fn();
    });
  }
}
