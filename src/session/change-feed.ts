/**
 * ChangeFeed: the single object every catalog change goes through.
 *
 * It coalesces bursts (a change starts a window of NOTIFY_COALESCE_MS; every
 * change inside it is folded into one notification of the newest
 * generation), deduplicates by generation, and fans out to every registry
 * shard in parallel. A fan-out with failures throws, so the alarm is retried
 * by the runtime; shards drop generations they already announced.
 * The last attempt's size and duration are kept for /status. What the folded
 * changes touched (`lists`: prompts, skills) is folded too, so the one
 * notification names every list any of them changed.
 */
import { DurableObject } from 'cloudflare:workers';
import { configOf } from '../lib/config.js';
import type { CatalogEvent, ChangedList } from './events.js';
import { shardCount, shardStub, type DeliveryReport, type FanoutRecord } from './fanout.js';
import { log } from '../lib/log.js';

export class ChangeFeed extends DurableObject<Env> {
  /**
   * Queues a change; false when it is not newer than what was already queued or announced.
   * Everything is read first and the pending mark and its alarm are written together (no await
   * between), so a restart cannot leave a change pending with no alarm to announce it. A writer
   * retrying a change this object already queued also finds its alarm armed.
   */
  async publish(event: CatalogEvent): Promise<boolean> {
    const got = await this.ctx.storage.get<number | ChangedList[]>(['published', 'pending', 'pendingLists']);
    const published = (got.get('published') as number | undefined) ?? 0;
    const pending = (got.get('pending') as number | undefined) ?? 0;
    const armed = (await this.ctx.storage.getAlarm()) !== null;
    const newer = event.generation > Math.max(published, pending);
    if (newer) {
      // Folded with what is still waiting for this window (absent lists: prompts, as before skills).
      const waiting =
        pending > published ? ((got.get('pendingLists') as ChangedList[] | undefined) ?? ['prompts']) : [];
      const lists = [...new Set([...waiting, ...(event.lists ?? ['prompts'])])].sort();
      void this.ctx.storage.put({ pending: event.generation, pendingLists: lists });
    }
    if (!armed && (newer || pending > published))
      void this.ctx.storage.setAlarm(Date.now() + configOf(this.env).notifyCoalesceMs);
    return newer;
  }

  override async alarm(): Promise<void> {
    const got = await this.ctx.storage.get<number | ChangedList[]>(['pending', 'pendingLists']);
    const generation = got.get('pending') as number | undefined;
    if (generation === undefined) return;
    const lists = (got.get('pendingLists') as ChangedList[] | undefined) ?? ['prompts'];
    const event: CatalogEvent = { kind: 'prompts_list_changed', generation, lists };
    const started = Date.now();
    const shards = shardCount(this.env);
    const results = await Promise.allSettled(
      Array.from({ length: shards }, (_, i) => shardStub(this.env, i).deliver(event)),
    );
    const total: DeliveryReport = { listeners: 0, streams: 0, rowsWritten: 0 };
    let shardFailures = 0;
    for (const r of results) {
      if (r.status === 'rejected') shardFailures += 1;
      else for (const k of Object.keys(total) as (keyof DeliveryReport)[]) total[k] += r.value[k];
    }
    const durationMs = Date.now() - started;
    log.info('catalog change fanned out', { generation, shards, shardFailures, ...total, ms: durationMs });
    // Kept before a failure throws, so /status shows the attempt that is being retried.
    const last: FanoutRecord = {
      generation,
      startedAt: new Date(started).toISOString(),
      durationMs,
      shards,
      shardFailures,
      ...total,
    };
    await this.ctx.storage.put('lastFanout', last);
    if (shardFailures) throw new Error(`fan-out of generation ${generation} incomplete; retrying`);
    await this.ctx.storage.put('published', generation);
    // A change that arrived during the fan-out is still pending: it gets a window of its own.
    if ((await this.ctx.storage.get<number>('pending')) === generation)
      await this.ctx.storage.delete(['pending', 'pendingLists']);
    else await this.ctx.storage.setAlarm(Date.now() + configOf(this.env).notifyCoalesceMs);
  }

  async status(): Promise<{ published: number; pending: number | null }> {
    return {
      published: (await this.ctx.storage.get<number>('published')) ?? 0,
      pending: (await this.ctx.storage.get<number>('pending')) ?? null,
    };
  }

  /** The last fan-out attempt (null before the first), for /status. */
  async lastFanout(): Promise<FanoutRecord | null> {
    return (await this.ctx.storage.get<FanoutRecord>('lastFanout')) ?? null;
  }
}
