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

/** Messages a session object sends down its WebSocket to the Worker holding the SSE response. */
export type StreamFrame =
  /** First frame: the id the stream resumes from (or starts at). */
  | { t: 'open'; id: string }
  | { t: 'event'; id: string; event: CatalogEvent }
  /** The session ended or another stream replaced this one: close the client's stream. */
  | { t: 'end'; reason: 'ended' | 'replaced' };

/** Event ids are `<stream key>.<sequence>`: unique within the session, and they name their stream. */
export function eventId(streamKey: string, seq: number): string {
  return `${streamKey}.${seq}`;
}

export function parseEventId(id: string): { key: string; seq: number } | null {
  const m = /^([A-Za-z0-9_-]{1,32})\.(\d{1,12})$/.exec(id);
  return m ? { key: m[1]!, seq: Number(m[2]) } : null;
}

/**
 * Messages a registry shard sends to the Worker holding a modern listen
 * stream. Listeners have no ids and no replay: `open` names the newest
 * generation the shard announced, which is all a reconnect needs.
 */
export type ListenerFrame = { t: 'open'; generation: number } | { t: 'event'; event: CatalogEvent };
