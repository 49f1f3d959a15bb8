/**
 * Where catalog changes travel, by name through the generated `Env`: the one ChangeFeed every
 * change is published to, and the RegistryShards it fans out through. A module of its own, so
 * the objects that reach each other (a session ending its stream at its shard, the feed delivering
 * to the shards, the catalog writer announcing) import none of each other's files.
 */
import { configOf } from '../lib/config.js';
import { fnv1a } from '../lib/hash.js';
import type { CatalogEvent } from './events.js';

/** What one shard's delivery reached and cost; the feed adds them up for its log line and /status. */
export interface DeliveryReport {
  /** Modern listen streams told (0 on a retried generation). */
  listeners: number;
  /** Legacy GET streams told (0 on a retried generation). */
  streams: number;
  /** SQLite rows the delivery wrote: a few per shard, whatever the number of streams. */
  rowsWritten: number;
}

/** What one shard holds now: legacy sessions with a standalone stream, and modern listen streams. */
export interface ShardCounts {
  sessions: number;
  listeners: number;
  /** The newest generation the shard announced: one behind the feed's `published` missed a fan-out. */
  announced: number;
}

/** The feed's last fan-out, kept for /status: when it started, how long it took and what it reached. */
export interface FanoutRecord extends DeliveryReport {
  generation: number;
  startedAt: string;
  durationMs: number;
  shards: number;
  /** Shards whose delivery call failed as a whole (the fan-out is then retried). */
  shardFailures: number;
  /** Streams of both eras at the shard that held the most. */
  busiestShard: number;
}

/**
 * More streams than this at one shard draw a warning: a fan-out wakes the shard with all of its
 * sockets, and at 22.1 KB of JavaScript heap per attached stream (both ends, bench/RESULTS.md) an
 * isolate's 128 MB holds about 6,000 (docs/scale.md, "What binds first").
 */
export const SHARD_STREAMS_WARN = 5_000;

/** The warning's fields when the busiest shard holds more than SHARD_STREAMS_WARN streams; else undefined. */
export function crowding(busiestShard: number, shards: number) {
  if (busiestShard <= SHARD_STREAMS_WARN) return undefined;
  return {
    busiestShard,
    shards,
    limit: SHARD_STREAMS_WARN,
    fix: `raise REGISTRY_SHARDS: one shard per ${SHARD_STREAMS_WARN} streams or more (docs/scale.md)`,
  };
}

/** The shard count may grow between deploys but must not shrink (streams on dropped shards would be missed). */
export function shardCount(env: Env): number {
  return configOf(env).registryShards;
}

export function shardIndex(sessionId: string, shards: number): number {
  return fnv1a(sessionId) % shards;
}

export function shardStub(env: Env, index: number) {
  return env.REGISTRY.getByName(`shard-${index}`);
}

/** The one ChangeFeed every catalog change goes through. */
export const changeFeed = (env: Env) => env.FEED.getByName('global');

/** The one publish path: every writer of the catalog announces its change here. */
export async function publishChange(env: Env, event: CatalogEvent): Promise<boolean> {
  return changeFeed(env).publish(event);
}

/** The newest generation fanned out to every stream, and the one still waiting for its window (null: none). */
export async function feedStatus(env: Env): Promise<{ published: number; pending: number | null }> {
  return changeFeed(env).status();
}
