/**
 * The CatalogWriter's reads of prompts and skills (catalog-writer.ts extends this class): the
 * current records, a page of them, one name with its versions' facts, and a name's history, all
 * straight from the versions table. They stand apart from the writes because they take no lock
 * and change nothing: a read never waits for a write in progress (write-lock.ts). A Durable
 * Object's RPC methods live on its class, so they are shared by inheritance.
 */
import { DurableObject } from 'cloudflare:workers';
import type { SnapshotSync } from './snapshot-sync.js';
import type { PromptRecord, SkillRecord, VersionInfo } from './types.js';
import {
  PROMPT_ROWS,
  SKILL_ROWS,
  VersionsTable,
  type HistoryOf,
  type HistoryPage,
  type ListPage,
  type Stored,
} from './versions-table.js';

export type StoredPrompt = Stored<PromptRecord>;

export abstract class CatalogReads extends DurableObject<Env> {
  protected readonly versions: VersionsTable;
  /** The writer's KV sync: a page is read with the generation it last published. */
  protected abstract readonly sync: SnapshotSync;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.versions = new VersionsTable(ctx.storage.sql);
  }

  /** The latest version of every prompt that is not deleted. */
  async current(): Promise<StoredPrompt[]> {
    return this.versions.latest<PromptRecord>(PROMPT_ROWS);
  }

  /** A page of the current prompts or skills by name: the admin API lists a catalog of any size in pages. */
  async currentPage(
    kind: 'prompts' | 'skills',
    page: ListPage,
  ): Promise<{ records: Stored<unknown>[]; next?: string; generation: number }> {
    // The generation read with the page: a reader of several pages sees whether the set changed between them.
    return {
      ...this.versions.latestPage(kind === 'prompts' ? PROMPT_ROWS : SKILL_ROWS, page),
      generation: this.sync.lastGeneration(),
    };
  }

  /** The current prompt and its newest versions' facts; `older`: how many earlier ones the history holds. */
  async get(name: string): Promise<{ prompt: StoredPrompt | null; versions: VersionInfo[]; older: number }> {
    const { latest, versions, older } = this.versions.one<PromptRecord>(PROMPT_ROWS, name);
    return { prompt: latest, versions, older };
  }

  async getSkill(name: string): Promise<{ skill: Stored<SkillRecord> | null; versions: VersionInfo[]; older: number }> {
    const { latest, versions, older } = this.versions.one<SkillRecord>(SKILL_ROWS, name);
    return { skill: latest, versions, older };
  }

  /** A page of one prompt's versions, oldest first, with their full text (null for a deletion). */
  async history(name: string, page: HistoryPage): Promise<HistoryOf<PromptRecord>> {
    return this.versions.history<PromptRecord>(PROMPT_ROWS, name, page);
  }

  async skillHistory(name: string, page: HistoryPage): Promise<HistoryOf<SkillRecord>> {
    return this.versions.history<SkillRecord>(SKILL_ROWS, name, page);
  }
}
