/**
 * ChangeFeed: the single object every catalog change goes through.
 *
 * It coalesces bursts (a change starts a window of NOTIFY_COALESCE_MS; every
 * change inside it is folded into one notification of the newest
 * generation), deduplicates by generation, and fans out to every registry
 * shard in parallel. What the folded changes touched (`lists`: prompts,
 * skills) is folded too, so the one notification names every list any of
 * them changed.
 *
 * The change being fanned out is `inflight`, apart from what waits for the
 * next window (`pending`): a change arriving mid fan-out is not folded into
 * the one already going out, so no list is announced twice. A fan-out with
 * failures is retried, the same event, by this object's own alarm with a
 * backoff (the runtime gives up on a throwing alarm after a few tries, which
 * would leave the change unannounced until the next one); shards drop
 * generations they already announced. The last attempt's size and duration
 * are kept for /status.
 */
import { DurableObject } from 'cloudflare:workers';
import { configOf } from '../lib/config.js';
import type { CatalogEvent, ChangedList } from './events.js';
import { crowding, shardCount, shardStub, type DeliveryReport, type FanoutRecord } from './fanout.js';
import { log } from '../lib/log.js';

/** A failed fan-out is retried after 1 s, then twice as long each time, at most every minute, until it succeeds. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 60_000;

/** Stored lists (absent: prompts, as before skills). */
const listsOf = (v: unknown): ChangedList[] => (v as ChangedList[] | undefined) ?? ['prompts'];

export class ChangeFeed extends DurableObject<Env> {
  /**
   * Queues a change; false when it is not newer than what was already queued, going out or announced.
   * Everything is read first and the pending mark and its alarm are written together (no await
   * between), so a restart cannot leave a change pending with no alarm to announce it. A writer
   * retrying a change this object already queued also finds its alarm armed.
   */
  async publish(event: CatalogEvent): Promise<boolean> {
    const got = await this.ctx.storage.get<unknown>(['published', 'pending', 'pendingLists', 'inflight']);
    const published = (got.get('published') as number | undefined) ?? 0;
    const pending = (got.get('pending') as number | undefined) ?? 0;
    const inflight = (got.get('inflight') as CatalogEvent | undefined)?.generation ?? 0;
    const armed = (await this.ctx.storage.getAlarm()) !== null;
    const newer = event.generation > Math.max(published, pending, inflight);
    if (newer) {
      // Folded with what is still waiting for this window (absent lists: prompts, as before skills).
      const waiting = pending > Math.max(published, inflight) ? listsOf(got.get('pendingLists')) : [];
      const lists = [...new Set([...waiting, ...(event.lists ?? ['prompts'])])].sort();
      // Neither write is awaited: the output gate holds the answer until both are stored. One fails
      // only when the object is reset mid-write; the gate then fails the call and the writer retries,
      // so the rejection has nothing left to tell.
      this.ctx.storage.put({ pending: event.generation, pendingLists: lists }).catch(() => undefined);
    }
    if (!armed && (newer || pending > published || inflight > published))
      this.ctx.storage.setAlarm(Date.now() + configOf(this.env).notifyCoalesceMs).catch(() => undefined);
    return newer;
  }

  override async alarm(): Promise<void> {
    const event = await this.next();
    if (!event) return;
    const ok = await this.fanOut(event);
    const cfg = configOf(this.env);
    if (!ok) {
      const attempts = ((await this.ctx.storage.get<number>('attempts')) ?? 0) + 1;
      const delayMs = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (attempts - 1));
      log.error('catalog fan-out incomplete; retrying', { generation: event.generation, attempts, delayMs });
      await this.ctx.storage.put('attempts', attempts);
      await this.ctx.storage.setAlarm(Date.now() + delayMs);
      return;
    }
    await this.ctx.storage.put('published', event.generation);
    await this.ctx.storage.delete(['inflight', 'attempts']);
    // A change that arrived during the fan-out is still pending: it gets a window of its own.
    if (((await this.ctx.storage.get<number>('pending')) ?? 0) > event.generation)
      await this.ctx.storage.setAlarm(Date.now() + cfg.notifyCoalesceMs);
  }

  /** The event to fan out now: the one already going out (a retry), else the pending one, moved to `inflight`. */
  private async next(): Promise<CatalogEvent | undefined> {
    const got = await this.ctx.storage.get<unknown>(['inflight', 'pending', 'pendingLists', 'published']);
    const inflight = got.get('inflight') as CatalogEvent | undefined;
    if (inflight) return inflight;
    const generation = got.get('pending') as number | undefined;
    if (generation === undefined) return undefined;
    await this.ctx.storage.delete(['pending', 'pendingLists']);
    if (generation <= ((got.get('published') as number | undefined) ?? 0)) return undefined;
    const event: CatalogEvent = { kind: 'prompts_list_changed', generation, lists: listsOf(got.get('pendingLists')) };
    await this.ctx.storage.put('inflight', event);
    return event;
  }

  /** One attempt at every shard, in parallel; true when every shard has it. Kept for /status either way. */
  private async fanOut(event: CatalogEvent): Promise<boolean> {
    const started = Date.now();
    const shards = shardCount(this.env);
    // What every shard had before this change: a shard new to the set learns where its log starts.
    const after = (await this.ctx.storage.get<number>('published')) ?? 0;
    const results = await Promise.allSettled(
      Array.from({ length: shards }, (_, i) => shardStub(this.env, i).deliver(event, after)),
    );
    const total: DeliveryReport = { listeners: 0, streams: 0, rowsWritten: 0 };
    let shardFailures = 0;
    let busiestShard = 0;
    for (const r of results) {
      if (r.status === 'rejected') shardFailures += 1;
      else {
        for (const k of Object.keys(total) as (keyof DeliveryReport)[]) total[k] += r.value[k];
        busiestShard = Math.max(busiestShard, r.value.listeners + r.value.streams);
      }
    }
    const durationMs = Date.now() - started;
    const { generation } = event;
    log.info('catalog change fanned out', {
      generation,
      shards,
      shardFailures,
      ...total,
      busiestShard,
      ms: durationMs,
    });
    const crowded = crowding(busiestShard, shards);
    if (crowded) log.warn('a registry shard holds more streams than its memory is sized for', crowded);
    const last: FanoutRecord = {
      generation,
      startedAt: new Date(started).toISOString(),
      durationMs,
      shards,
      shardFailures,
      ...total,
      busiestShard,
    };
    await this.ctx.storage.put('lastFanout', last);
    return shardFailures === 0;
  }

  /** `pending`: the newest change not announced everywhere yet (waiting for its window, or going out). */
  async status(): Promise<{ published: number; pending: number | null }> {
    const got = await this.ctx.storage.get<unknown>(['published', 'pending', 'inflight']);
    const waiting = Math.max(
      (got.get('pending') as number | undefined) ?? 0,
      (got.get('inflight') as CatalogEvent | undefined)?.generation ?? 0,
    );
    return { published: (got.get('published') as number | undefined) ?? 0, pending: waiting || null };
  }

  /** The last fan-out attempt (null before the first), for /status. */
  async lastFanout(): Promise<FanoutRecord | null> {
    return (await this.ctx.storage.get<FanoutRecord>('lastFanout')) ?? null;
  }
}
