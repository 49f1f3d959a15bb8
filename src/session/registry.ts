/**
 * RegistryShard: which live sessions hold a standalone stream, sharded by a
 * hash of the session id, so one catalog change fans out shard by shard in
 * parallel and no single object has to call every session.
 *
 * Members live in the shard's SQLite storage. A session joins when it first
 * opens a stream and leaves when it ends (DELETE or expiry); a member whose
 * session is gone by the time a change arrives is dropped then, so the
 * registry heals itself even if a removal was lost.
 */
import { DurableObject } from 'cloudflare:workers';
import { configOf } from '../lib/config.js';
import type { CatalogEvent } from './events.js';
import { sessionStub } from './sessions.js';

/** The shard count may grow between deploys but must not shrink (members of dropped shards would be missed). */
export function shardCount(env: Env): number {
  return configOf(env).registryShards;
}

/** FNV-1a: stable across isolates and deploys, which is all a shard key needs. */
export function shardIndex(sessionId: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < sessionId.length; i++) {
    h ^= sessionId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}

export function shardStub(env: Env, index: number): DurableObjectStub<RegistryShard> {
  return env.REGISTRY.get(env.REGISTRY.idFromName(`shard-${index}`));
}

export function shardFor(env: Env, sessionId: string): DurableObjectStub<RegistryShard> {
  return shardStub(env, shardIndex(sessionId, shardCount(env)));
}

/** Calls into session objects run this many at a time per shard. */
const DELIVERY_CONCURRENCY = 200;

export interface DeliveryReport {
  members: number;
  delivered: number;
  dropped: number;
  failed: number;
}

export class RegistryShard extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS members (session TEXT PRIMARY KEY, joined_at INTEGER NOT NULL)');
  }

  async add(sessionId: string): Promise<void> {
    this.ctx.storage.sql.exec('INSERT OR IGNORE INTO members (session, joined_at) VALUES (?, ?)', sessionId, Date.now());
  }

  async remove(sessionId: string): Promise<void> {
    this.ctx.storage.sql.exec('DELETE FROM members WHERE session = ?', sessionId);
  }

  async members(): Promise<string[]> {
    return this.ctx.storage.sql.exec<{ session: string }>('SELECT session FROM members ORDER BY session').toArray().map((r) => r.session);
  }

  /**
   * Hands the event to every member's session object. A failed call is
   * reported (and the whole fan-out retried by the feed); sessions ignore a
   * generation they already have, so a retry never duplicates a notification.
   */
  async deliver(event: CatalogEvent): Promise<DeliveryReport> {
    const ids = await this.members();
    const report: DeliveryReport = { members: ids.length, delivered: 0, dropped: 0, failed: 0 };
    for (let i = 0; i < ids.length; i += DELIVERY_CONCURRENCY) {
      const batch = ids.slice(i, i + DELIVERY_CONCURRENCY);
      const results = await Promise.allSettled(batch.map((id) => sessionStub(this.env, id).deliver(event)));
      results.forEach((r, j) => {
        if (r.status === 'rejected') report.failed += 1;
        else if (r.value) report.delivered += 1;
        else {
          report.dropped += 1;
          this.ctx.storage.sql.exec('DELETE FROM members WHERE session = ?', batch[j]!);
        }
      });
    }
    return report;
  }
}
