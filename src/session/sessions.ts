/**
 * The Worker's view of sessions: create, check, end.
 *
 * A check is a signature check of the id (memoised) plus a per-isolate
 * liveness memo. Only when the memo is older than `recheckMs` does the
 * isolate ask the session's Durable Object (which also records activity).
 * An isolate that ended a session forgets it at once; other isolates notice
 * within `recheckMs`. The README ("Session checks") has the measurements
 * behind this trade-off; `recheckMs = 0` asks the Durable Object every time.
 *
 * The memo also keeps the session's client label (lib/record.ts), from
 * createSession or from the object's answer to a check, so a warm
 * in-session request names its client with no extra round trip.
 *
 * A session belongs to the principal that opened it (token.ts): every check
 * takes the caller's principal id, and another principal's id fails the
 * signature check like a forged one.
 */
import type { ClientCapabilities, Implementation, LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import { BoundedMap } from '../lib/memo.js';
import { ANONYMOUS_ID } from '../lib/caller.js';
import { clientLabel, type ClientLabel } from '../lib/record.js';
import type { LegacyVersion } from '../lib/versions.js';
import { mintSessionId, readSessionId, verifiedSessionId } from './token.js';

/** Only the binding: sessions are reached by name through the generated `Env`. */
export type SessionEnv = Pick<Env, 'SESSIONS'>;

/** Where a check writes the session's client label (a RequestRecord is one). */
export interface ClientSink {
  client: ClientLabel | undefined;
}

/** Alive until `until` (epoch ms) as far as this isolate knows; one object per session, renewed in place. */
interface Live {
  until: number;
  client: ClientLabel | undefined;
}

const live = new BoundedMap<string, Live>(50_000);
const ended = new BoundedMap<string, true>(50_000);

export function sessionStub(env: SessionEnv, id: string) {
  return env.SESSIONS.getByName(id);
}

export async function createSession(
  env: SessionEnv,
  secret: string,
  init: {
    version: LegacyVersion;
    clientInfo?: Implementation;
    capabilities?: ClientCapabilities;
    ttlMs: number;
    recheckMs: number;
    /** The principal that opens it (lib/caller.ts principalIdOf); anonymous when absent. */
    principal?: string;
  },
): Promise<string> {
  const { recheckMs, principal, ...state } = init;
  const id = await mintSessionId(secret, init.version, principal);
  await sessionStub(env, id).open({ ...state, id });
  // This isolate has just seen the object accept it: no need to ask again before the memo runs out.
  if (recheckMs > 0) remember(id, Date.now() + recheckMs, clientLabel(init.clientInfo));
  return id;
}

function remember(id: string, until: number, client: ClientLabel | undefined): void {
  const known = live.get(id);
  if (known) {
    known.until = until;
    known.client = client;
  } else live.set(id, { until, client });
}

/**
 * The revision of a session this isolate verified and saw alive less than
 * `recheckMs` ago; undefined when checkSession must decide. Synchronous: the
 * in-session hot path makes no promise and allocates nothing. `into` gets the
 * session's client label.
 */
export function knownSession(
  secret: string,
  id: string,
  principal: string = ANONYMOUS_ID,
  into?: ClientSink,
): LegacyVersion | undefined {
  const version = verifiedSessionId(secret, id, principal);
  if (!version || ended.has(id)) return undefined;
  const known = live.get(id);
  if (known === undefined || known.until <= Date.now()) return undefined;
  if (into) into.client = known.client;
  return version;
}

/** The session's negotiated revision, or null when the id is forged, unknown or ended. */
export async function checkSession(
  env: SessionEnv,
  secret: string,
  id: string,
  recheckMs: number,
  principal: string = ANONYMOUS_ID,
  into?: ClientSink,
): Promise<LegacyVersion | null> {
  const known = knownSession(secret, id, principal, into);
  if (known) return known;
  const version = await readSessionId(secret, id, principal);
  if (!version || ended.has(id)) return null;
  const now = Date.now();
  const touched = await sessionStub(env, id).touch();
  if (touched === false) {
    markEnded(id);
    return null;
  }
  if (into) into.client = touched.client;
  if (recheckMs > 0) remember(id, now + recheckMs, touched.client);
  return version;
}

export async function endSession(env: SessionEnv, id: string): Promise<boolean> {
  markEnded(id);
  return sessionStub(env, id).end();
}

export async function setSessionLogLevel(env: SessionEnv, id: string, level: LoggingLevel): Promise<boolean> {
  return sessionStub(env, id).setLogLevel(level);
}

function markEnded(id: string): void {
  live.delete(id);
  ended.set(id, true);
}
