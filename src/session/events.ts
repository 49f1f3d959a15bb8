/**
 * Catalog events and what travels between Durable Objects and the Worker
 * that holds a client's stream.
 *
 * Events, not wire frames: a Durable Object never builds SSE or JSON-RPC.
 * Each stream kind (a legacy GET stream, a modern listen stream)
 * turns an event into its own frame in the Worker.
 */

/** What a change touched: prompts (and so the tools mirror) or skills (and so skill resources). */
export type ChangedList = 'prompts' | 'skills';

/** A change of the catalog. Generations only grow, so they also deduplicate. */
export interface CatalogEvent {
  kind: 'prompts_list_changed';
  generation: number;
  /** What changed; absent means prompts only (events from before skills). */
  lists?: ChangedList[];
}

/** Headers of a stream's upgrade request to its shard (stream.ts): no session header means a listen stream. */
export const STREAM_SESSION_HEADER = 'x-promptgate-session';
export const STREAM_SINCE_HEADER = 'x-promptgate-since';
/** A listen stream's own id, the same on each of its reconnects (the Worker makes it; clients cannot send it). */
export const STREAM_LISTEN_HEADER = 'x-promptgate-listen';
/** The most streams the shard may hold, as the Worker's configuration says (SHARD_MAX_STREAMS). */
export const STREAM_CAP_HEADER = 'x-promptgate-max-streams';
/** Who opens the stream (its address key) and how many streams one client may hold there (SHARD_MAX_CLIENT_STREAMS). */
export const STREAM_CLIENT_HEADER = 'x-promptgate-client';
export const STREAM_CLIENT_CAP_HEADER = 'x-promptgate-max-client-streams';

/**
 * Messages a registry shard sends down its WebSockets to the Workers holding client streams,
 * legacy GET streams and modern listen streams alike. A change is one frame, serialized once for
 * every socket of the shard: each Worker frames it for its own stream (an event id, a tag).
 */
export type ShardFrame =
  /** First frame: the newest generation the shard announced (a stream's starting position). */
  | { t: 'open'; generation: number }
  | { t: 'event'; event: CatalogEvent }
  /** The session ended or another stream replaced this one: close the client's stream. */
  | { t: 'end'; reason: 'ended' | 'replaced' };

/** The catalog generation a frame other than `end` names: the shard's position, or the change's. */
export const frameGeneration = (f: Exclude<ShardFrame, { t: 'end' }>): number =>
  f.t === 'open' ? f.generation : f.event.generation;

/**
 * Event ids are `<stream key>.<catalog generation>`: a stream's position is the newest
 * generation it delivered, so nothing per session is written per delivery. The key is the
 * session's current stream's (unique within the session), so an id names its stream.
 */
export function eventId(streamKey: string, generation: number): string {
  return `${streamKey}.${generation}`;
}

export function parseEventId(id: string): { key: string; generation: number } | null {
  const m = /^([A-Za-z0-9_-]{1,32})\.(\d{1,16})$/.exec(id);
  const generation = Number(m?.[2]);
  // 16 digits can exceed 2^53: such a position names no event, as garbage does not.
  return m && Number.isSafeInteger(generation) ? { key: m[1]!, generation } : null;
}
