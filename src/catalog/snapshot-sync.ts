/**
 * Keeps KV and the change announcements in step with the CatalogWriter's
 * history (catalog-writer.ts), in that object's SQLite `meta` table
 * (docs/storage-schema.md): the last generation, the last one announced, a
 * dirty mark, and the lists the pending change touched.
 *
 * A write (`write`) is begun with a retry alarm armed first and the dirty
 * mark set beside the history it records; then it is published: the snapshot
 * written to KV, the change announced and the mark cleared. If the KV write or the
 * announcement fails, or the object is restarted half-way, `resyncIfDirty`
 * (before the next write, or on that alarm) publishes again from the history,
 * so KV and the announcements converge to what the history says even when no
 * other write comes. Announcements are idempotent by generation, so a retry
 * never notifies twice. A snapshot too large for KV is retried every
 * TOO_LARGE_RETRY_MS instead: only a write (which publishes it first) or a new
 * upstream configuration can make it smaller. Old snapshots are deleted once no
 * reader can still want them (snapshot-ledger.ts).
 */
import { log } from '../lib/log.js';
import { configOf } from '../lib/config.js';
import { publishChange } from '../session/fanout.js';
import type { ChangedList } from '../session/events.js';
import { collisions } from './collisions.js';
import { readGeneration } from './store.js';
import { SnapshotLedger } from './snapshot-ledger.js';
import { KV_VALUE_MAX_BYTES, SnapshotTooLargeError, writeSnapshot } from './snapshot-write.js';
import type { CatalogSnapshot } from './types.js';

const RETRY_MS = 5_000;
/** The retry of a snapshot too large for KV: trying again changes nothing until the catalog does. */
export const TOO_LARGE_RETRY_MS = 10 * 60_000;

/** What a snapshot holds besides its generation: the history's current state. */
export type SnapshotContent = Omit<CatalogSnapshot, 'generation' | 'updatedAt' | 'localPrefix' | 'separator'>;

export class SnapshotSync {
  private readonly sql: SqlStorage;
  private readonly ledger: SnapshotLedger;

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: Env,
    /** The current prompts, skills and upstream listings, read when a snapshot is written. */
    private readonly content: () => Promise<SnapshotContent>,
  ) {
    this.sql = ctx.storage.sql;
    this.sql.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
    this.ledger = new SnapshotLedger(this.sql);
    // Snapshots written before the ledger kept them: adopted from KV's listing, a page per write.
    if (this.ledger.created && this.lastGeneration() > 0) this.setMeta('untracked', '');
  }

  /** The generation last begun (0 before the first write). */
  lastGeneration(): number {
    return Number(this.meta('generation') ?? 0);
  }

  /**
   * The size of the last snapshot written to KV, or refused by it as too large, in bytes (0 before
   * the first): what a write that grows the catalog is measured against (versioned-writes.ts).
   */
  lastBytes(): number {
    return Number(this.meta('bytes') ?? 0);
  }

  /**
   * The size of the recorded catalog when KV refused its snapshot as too large and nothing has
   * published it since; undefined when the history is served (or only waits on a transient retry).
   */
  unpublishedTooLarge(): number | undefined {
    const bytes = this.lastBytes();
    return this.meta('dirty') === '1' && bytes > KV_VALUE_MAX_BYTES ? bytes : undefined;
  }

  /**
   * One change: a new generation begun with `record` (the history's own rows for it, written in one
   * transaction with the dirty mark), then published. Resolves what `record` returned.
   */
  async write<T>(
    lists: ChangedList[],
    record: (generation: number) => T,
    announce = true,
  ): Promise<{ generation: number; recorded: T; snapshot: CatalogSnapshot }> {
    const generation = await this.nextGeneration();
    // A change still unpublished (its KV write failed) goes out with this one, announced, its lists too.
    const unpublished = this.meta('dirty') === '1' ? listsOf(this.meta('lists')) : undefined;
    const all = unpublished ? [...new Set([...unpublished, ...lists])].sort() : lists;
    const recorded = await this.begin(generation, all, () => record(generation));
    const snapshot = await this.publish(generation, announce || unpublished !== undefined, all);
    return { generation, recorded, snapshot };
  }

  /** Past every generation this object or KV has seen, and never behind the clock. */
  private async nextGeneration(): Promise<number> {
    return Math.max(Date.now(), this.lastGeneration() + 1, (await readGeneration(this.env.PROMPTS)) + 1);
  }

  /**
   * Marks `generation` as begun and dirty, in one transaction with `record` (the history's own rows).
   * The retry alarm is armed before anything is marked dirty, so a restart at any later point (inside
   * the KV write, before or during the announcement) is finished by the alarm even if no other write
   * ever comes. An alarm that finds nothing dirty does nothing.
   */
  private async begin<T>(generation: number, lists: ChangedList[], record: () => T): Promise<T> {
    const armed = this.ctx.storage.setAlarm(Date.now() + RETRY_MS);
    // Handled here as well as awaited below: if the transaction throws, its error is the one the
    // caller gets, and the alarm's own failure (the object reset) must not be left unhandled.
    armed.catch(() => undefined);
    let recorded!: T;
    this.ctx.storage.transactionSync(() => {
      recorded = record();
      this.ledger.begun(generation);
      this.setMeta('generation', String(generation));
      this.setMeta('dirty', '1');
      this.setMeta('lists', lists.join(','));
    });
    await armed;
    return recorded;
  }

  /** `lists`: what the announced change touched (session/events.ts); the streams frame it per list. */
  private async publish(generation: number, announce: boolean, lists: ChangedList[]): Promise<CatalogSnapshot> {
    const announced = announce ? generation : Number(this.meta('announced')) || undefined;
    const snap: CatalogSnapshot = {
      generation,
      ...(announced !== undefined && { announced }),
      updatedAt: new Date().toISOString(),
      ...(await this.content()),
    };
    const { localPrefix, separator } = configOf(this.env);
    if (localPrefix) Object.assign(snap, { localPrefix, separator });
    const clashes = collisions(snap);
    if (clashes.length)
      log.warn('prompt name collisions: each caller is served the first owner it may see', {
        generation,
        collisions: clashes,
      });
    try {
      this.setMeta('bytes', String(await writeSnapshot(this.env.PROMPTS, snap)));
      if (announce)
        await publishChange(this.env, {
          kind: 'prompts_list_changed',
          generation,
          lists: lists.length ? lists : ['prompts'],
        });
      if (announce) this.setMeta('announced', String(generation));
      this.setMeta('dirty', '0');
      await this.ctx.storage.deleteAlarm();
      await this.retire(generation);
      return snap;
    } catch (e) {
      // History is recorded; KV and the announcement catch up before the next write or on this alarm.
      const tooLarge = e instanceof SnapshotTooLargeError;
      if (tooLarge) {
        // Its real size: a write that grows the catalog further is refused, one that shrinks it goes on.
        this.setMeta('bytes', String(e.bytes));
        log.error('catalog snapshot too large for KV; remove or shrink prompts to publish again', {
          generation,
          bytes: e.bytes,
        });
      }
      await this.ctx.storage.setAlarm(Date.now() + (tooLarge ? TOO_LARGE_RETRY_MS : RETRY_MS));
      throw e;
    }
  }

  /** After `generation` is out: old snapshots deleted, and a page of untracked ones adopted first. */
  private async retire(generation: number): Promise<void> {
    const untracked = this.meta('untracked');
    if (untracked !== undefined)
      try {
        const next = await this.ledger.adopt(this.env.PROMPTS, untracked, generation);
        if (next === undefined) this.sql.exec("DELETE FROM meta WHERE key = 'untracked'");
        else this.setMeta('untracked', next);
      } catch (e) {
        log.warn('untracked catalog snapshots not listed; the next write tries again', { error: String(e) });
      }
    await this.ledger.published(this.env.PROMPTS, generation);
  }

  /** Publishes a write that was cut short; nothing when none was. */
  async resyncIfDirty(): Promise<void> {
    // A write cut short is announced with the lists it recorded (prompts when it recorded none, e.g. a stale flip).
    if (this.meta('dirty') === '1') await this.publish(this.lastGeneration(), true, listsOf(this.meta('lists')));
  }

  private meta(key: string): string | undefined {
    return this.sql.exec<{ value: string }>('SELECT value FROM meta WHERE key = ?', key).toArray()[0]?.value;
  }

  private setMeta(key: string, value: string): void {
    this.sql.exec('INSERT OR REPLACE INTO meta VALUES (?, ?)', key, value);
  }
}

/** The lists a pending announcement is about (meta `lists`, comma-separated); prompts when unknown. */
function listsOf(meta: string | undefined): ChangedList[] {
  const lists = (meta ?? '').split(',').filter((l): l is ChangedList => l === 'prompts' || l === 'skills');
  return lists.length ? lists : ['prompts'];
}
