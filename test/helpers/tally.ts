/**
 * Exact per-client notification counts for legacy GET streams, for the
 * fault and concurrency suites (workerd).
 *
 * A legacy notification's event id is `<stream key>.<seq>`, and the session
 * object's replay log maps each seq to the catalog generation it announced.
 * Ending the session closes its stream after everything already sent on it,
 * so reading to the end gives every notification the client got, with no
 * waiting for "nothing more to come".
 */
import { env, runInDurableObject, SELF } from 'cloudflare:test';
import type { CatalogEvent } from '../../src/session/events.js';
import { MCP_URL, openSession, openStream, type EventStream, type Session } from './worker.js';

export interface LegacyClient {
  session: Session;
  stream: EventStream;
  /** The priming event's id (`<key>.0`); clients before 2025-11-25 get none. */
  primed?: string;
}

export interface LegacyTally {
  /** Generations in the session's replay log, by seq (what the session object delivered). */
  logged: number[];
  /** Event ids the client received, in order. */
  received: string[];
  /** Generations the client received more than once, or out of order. */
  duplicates: number;
  /** Logged notifications the client never received (a resume that did not replay). */
  missed: number;
}

export const sessionObject = (id: string) => env.SESSIONS.get(env.SESSIONS.idFromName(id));

export async function legacyClient(version = '2025-11-25'): Promise<LegacyClient> {
  const session = await openSession(version);
  const stream = await openStream(session);
  await stream.next();
  const primed = version >= '2025-11-25' ? (await stream.next()).id! : undefined;
  return { session, stream, primed };
}

/** Ends the client's session and tallies what its stream carried against what its session object logged. */
export async function finishLegacy(c: LegacyClient): Promise<LegacyTally> {
  const log = await runInDurableObject(sessionObject(c.session.id), (_o, ctx) =>
    ctx.storage.list<{ seq: number; event: CatalogEvent }>({ prefix: 'log:' }),
  );
  const entries = [...log.values()];
  const res = await SELF.fetch(MCP_URL, { method: 'DELETE', headers: { 'mcp-session-id': c.session.id } });
  if (res.status !== 200) throw new Error(`DELETE answered ${res.status}`);
  const received = (await c.stream.rest()).map((m) => m.id!);
  const key = (c.primed ?? received[0] ?? '').replace(/\.\d+$/, '');
  const seqs = received.map((id) => (id.startsWith(`${key}.`) ? Number(id.slice(key.length + 1)) : NaN));
  let duplicates = 0;
  for (let i = 0; i < seqs.length; i++) if (!(seqs[i]! > (i ? seqs[i - 1]! : 0))) duplicates += 1;
  const got = new Set(seqs);
  const logged = entries.map((e) => e.event.generation);
  for (let i = 1; i < logged.length; i++) if (!(logged[i]! > logged[i - 1]!)) duplicates += 1;
  return { logged, received, duplicates, missed: entries.filter((e) => !got.has(e.seq)).length };
}
