/**
 * The live figures /status shows: open streams counted at every registry
 * shard in parallel, and the change feed's progress and last fan-out. Each read is bounded
 * and may fail alone; a shard or feed that does not answer is reported as
 * unknown, so /status stays cheap and never fails because of them.
 */
import { bounded, STATUS_CALL_MS, statusFigure } from '../lib/bounded.js';
import { changeFeed, feedStatus, shardCount, shardStub, type FanoutRecord } from './fanout.js';

export interface LiveCounts {
  /** Legacy sessions with a standalone GET stream. */
  sessions: number;
  /** Modern subscriptions/listen streams. */
  listeners: number;
  /** Both together. */
  streams: number;
  shards: number;
  /** Shards that did not answer: the counts above leave them out. */
  unknownShards: number;
  /** The oldest generation any answering shard announced (null: none answered); older than the feed's `published` means a shard is behind. */
  oldestAnnounced: number | null;
}

export async function liveCounts(env: Env): Promise<LiveCounts> {
  const shards = shardCount(env);
  const results = await Promise.allSettled(
    Array.from({ length: shards }, (_, i) => bounded(shardStub(env, i).counts(), STATUS_CALL_MS)),
  );
  const live: LiveCounts = { sessions: 0, listeners: 0, streams: 0, shards, unknownShards: 0, oldestAnnounced: null };
  for (const r of results) {
    if (r.status === 'rejected') live.unknownShards += 1;
    else {
      live.sessions += r.value.sessions;
      live.listeners += r.value.listeners;
      live.oldestAnnounced = Math.min(live.oldestAnnounced ?? Infinity, r.value.announced);
    }
  }
  live.streams = live.sessions + live.listeners;
  return live;
}

/** The last fan-out; null before the first, 'unknown' when the feed does not answer. */
export const lastFanout = (env: Env): Promise<FanoutRecord | null | 'unknown'> =>
  statusFigure(changeFeed(env).lastFanout());

/** The feed's progress (published, pending); 'unknown' when the feed does not answer. */
export const feedProgress = (env: Env): Promise<{ published: number; pending: number | null } | 'unknown'> =>
  statusFigure(feedStatus(env));
