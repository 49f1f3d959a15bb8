/**
 * Exact per-client notification counts for legacy GET streams, for the
 * fault and concurrency suites (workerd).
 *
 * A legacy notification's event id is `<stream key>.<generation>`, and the
 * session's registry shard logs every generation it announced. Ending the
 * session closes its stream after everything already sent on it, so reading
 * to the end gives every notification the client got, with no waiting for
 * "nothing more to come".
 */
import { env, runInDurableObject, SELF } from 'cloudflare:test';
import { shardCount, shardIndex, shardStub } from '../../src/session/fanout.js';
import { MCP_URL, openSession, openStream, type EventStream, type Session } from './worker.js';

export interface LegacyClient {
  session: Session;
  stream: EventStream;
  /** The priming event's id (`<key>.<generation>`); clients before 2025-11-25 get none. */
  primed?: string;
  /** The generation the stream started at: what its shard had announced when it opened. */
  since: number;
}

export interface LegacyTally {
  /** Generations the session's shard announced after the stream started (what it was sent). */
  logged: number[];
  /** Event ids the client received, in order. */
  received: string[];
  /** Generations the client received more than once, or out of order. */
  duplicates: number;
  /** Logged notifications the client never received (a resume that did not replay). */
  missed: number;
}

export const sessionObject = (id: string) => env.SESSIONS.get(env.SESSIONS.idFromName(id));

/** The registry shard a session's stream attaches to (the shard count does not change in tests). */
export const shardOf = (sessionId: string) => shardStub(env, shardIndex(sessionId, shardCount(env)));

/** How many stream sockets the session has at its shard (1 while its stream is attached). */
export const streamsAtShard = (sessionId: string) =>
  runInDurableObject(shardOf(sessionId), (_o, ctx) => ctx.getWebSockets(sessionId).length);

/** The generations a shard logged after `since`, oldest first. */
export const shardEvents = (sessionId: string, since: number) =>
  runInDurableObject(shardOf(sessionId), (_o, ctx) =>
    ctx.storage.sql
      .exec<{ generation: number }>('SELECT generation FROM events WHERE generation > ? ORDER BY generation', since)
      .toArray()
      .map((r) => r.generation),
  );

const announcedAt = (sessionId: string) =>
  runInDurableObject(
    shardOf(sessionId),
    (_o, ctx) =>
      ctx.storage.sql.exec<{ generation: number }>('SELECT generation FROM announced').toArray()[0]?.generation ?? 0,
  );

export async function legacyClient(version = '2025-11-25'): Promise<LegacyClient> {
  const session = await openSession(version);
  const stream = await openStream(session);
  await stream.next();
  const primed = version >= '2025-11-25' ? (await stream.next()).id! : undefined;
  const since = primed ? Number(primed.slice(primed.lastIndexOf('.') + 1)) : await announcedAt(session.id);
  return { session, stream, primed, since };
}

/** Ends the client's session and tallies what its stream carried against what its shard announced. */
export async function finishLegacy(c: LegacyClient): Promise<LegacyTally> {
  const logged = await shardEvents(c.session.id, c.since);
  const res = await SELF.fetch(MCP_URL, { method: 'DELETE', headers: { 'mcp-session-id': c.session.id } });
  if (res.status !== 200) throw new Error(`DELETE answered ${res.status}`);
  const received = (await c.stream.rest()).map((m) => m.id!);
  const key = (c.primed ?? received[0] ?? '').replace(/\.\d+$/, '');
  const gens = received.map((id) => (id.startsWith(`${key}.`) ? Number(id.slice(key.length + 1)) : NaN));
  let duplicates = 0;
  for (let i = 0; i < gens.length; i++) if (!(gens[i]! > (i ? gens[i - 1]! : c.since))) duplicates += 1;
  const got = new Set(gens);
  return { logged, received, duplicates, missed: logged.filter((g) => !got.has(g)).length };
}
