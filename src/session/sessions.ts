/**
 * The Worker's view of sessions: create, check, end.
 *
 * Creating a session is minting its signed id (token.ts): no Durable Object
 * is written, so `initialize` costs an HMAC. The session's object is made by
 * the first call that needs state (a liveness recheck of any request, the GET
 * stream's included; `logging/setLevel`; DELETE), from what the id says
 * (SessionInit); an id minted
 * longer than the TTL ago whose object never came to be is expired.
 *
 * A check is a signature check of the id (memoised) plus a per-isolate
 * liveness memo. Only when the memo is older than `recheckMs` does the
 * isolate ask the session's Durable Object (which also records activity).
 * An isolate that ended a session forgets it at once; other isolates notice
 * within `recheckMs`. docs/architecture.md ("Session checks") has the measurements
 * behind this trade-off; `recheckMs = 0` asks the Durable Object every time.
 *
 * A session belongs to the principal that opened it (token.ts): every check
 * takes the caller's principal id, and another principal's id fails the
 * signature check like a forged one.
 */
import type { Implementation, LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import { BoundedMap } from '../lib/memo.js';
import { bounded } from '../lib/bounded.js';
import { log } from '../lib/log.js';
import { ANONYMOUS_ID } from '../lib/caller.js';
import { clientLabel, type ClientLabel } from '../lib/record.js';
import type { LegacyVersion } from '../lib/versions.js';
import type { SessionInit } from './session-state.js';
import { mintSessionId, readSessionToken, verifiedToken, type SessionToken } from './token.js';

/** Only the binding: sessions are reached by name through the generated `Env`. */
export type SessionEnv = Pick<Env, 'SESSIONS'>;

/** Where a check writes the session's client label (a RequestRecord is one). */
export interface ClientSink {
  client: ClientLabel | undefined;
}

/** Alive until (epoch ms) as far as this isolate knows. */
const live = new BoundedMap<string, number>(50_000);
const ended = new BoundedMap<string, true>(50_000);

export function sessionStub(env: SessionEnv, id: string) {
  return env.SESSIONS.getByName(id);
}

/** A new session's id and what it says of the client; nothing is stored anywhere. */
export async function createSession(
  secret: string,
  init: {
    version: LegacyVersion;
    clientInfo?: Implementation;
    ttlMs: number;
    recheckMs: number;
    /** The principal that opens it (lib/caller.ts principalIdOf); anonymous when absent. */
    principal?: string;
  },
): Promise<{ id: string; client: ClientLabel | undefined }> {
  const id = await mintSessionId(secret, init.version, init.principal, {
    client: clientLabel(init.clientInfo),
    ttlMs: init.ttlMs,
  });
  // Minted here, so alive: no need to ask anyone before the memo runs out.
  if (init.recheckMs > 0) live.set(id, Date.now() + init.recheckMs);
  return { id, client: verifiedToken(secret, id, init.principal)?.client };
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
  const token = verifiedToken(secret, id, principal);
  if (!token || ended.has(id)) return undefined;
  const until = live.get(id);
  if (until === undefined || until <= Date.now()) return undefined;
  if (into) into.client = token.client;
  return token.version;
}

/** What a session's object needs to come to be, from its verified id. */
const initOf = (id: string, token: SessionToken): SessionInit => ({
  id,
  version: token.version,
  unusedUntil: token.unusedUntil,
});

/** The session's negotiated revision, or null when the id is forged, unknown, expired or ended. */
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
  const token = await readSessionToken(secret, id, principal);
  if (!token || ended.has(id)) return null;
  const now = Date.now();
  if (!(await sessionStub(env, id).touch(initOf(id, token)))) {
    markEnded(id);
    return null;
  }
  if (into) into.client = token.client;
  if (recheckMs > 0) live.set(id, now + recheckMs);
  return token.version;
}

/**
 * What the session's object is made from, for calls that need its state (stream, log level,
 * DELETE). Only after the id was checked for this principal (requireSession): null otherwise.
 */
export async function sessionInit(secret: string, id: string, principal: string = ANONYMOUS_ID) {
  const token = await readSessionToken(secret, id, principal);
  return token && initOf(id, token);
}

/**
 * Ends the session; false when it had already ended or expired. This isolate stops vouching for it
 * at once, but if the object's answer does not come, forgets that again: the 503 says to repeat
 * the DELETE, and the repeat must reach the object, which alone ends the session for every isolate.
 */
export async function endSession(env: SessionEnv, init: SessionInit): Promise<boolean> {
  markEnded(init.id);
  try {
    return await sessionStub(env, init.id).end(init);
  } catch (e) {
    ended.delete(init.id);
    throw e;
  }
}

export async function setSessionLogLevel(env: SessionEnv, init: SessionInit, level: LoggingLevel): Promise<boolean> {
  return sessionStub(env, init.id).setLogLevel(init, level);
}

/** How long a stream's liveness check waits for the session's object before counting it as no answer. */
const ALIVE_WAIT_MS = 5_000;

/**
 * A stream's keepalive check of its session: no call until the session could first have expired
 * (its id's `unusedUntil`: no activity can end it sooner), then one when its idle TTL would run
 * out. The session's object also ends the stream itself on DELETE and on expiry by alarm; this
 * ends the stream of a session that never had an object.
 *
 * Only the object's no ends the stream. No answer (the object reset or overloaded under the call,
 * or silent for `waitMs`) says nothing of the session: the stream goes on and the next keepalive
 * asks again. Not forever: checks that have had no answer for the session's idle TTL (`ttlMs`, from
 * the first of them) are a no, since a session nobody could confirm for that long may have expired.
 */
export function sessionLiveness(
  env: SessionEnv,
  init: SessionInit,
  ttlMs: number,
  waitMs = ALIVE_WAIT_MS,
): () => boolean | Promise<boolean> {
  let checkAt = init.unusedUntil;
  // When the first of the checks that had no answer, one after another, was asked (undefined: the last one had).
  let failingSince: number | undefined;
  const answered = (r: false | { until: number }): boolean => {
    failingSince = undefined;
    if (!r) markEnded(init.id);
    else checkAt = r.until;
    return r !== false;
  };
  // Logged by what failed and for how long, never by the session's id: it is the client's credential.
  const unanswered = (askedAt: number, e: unknown): boolean => {
    const first = failingSince === undefined;
    const failingMs = Date.now() - (failingSince ??= askedAt);
    if (failingMs >= ttlMs) {
      log.warn("stream ended: its session's liveness had no answer for the idle TTL", { error: String(e), failingMs });
      return false;
    }
    // Once per run of them, not at every keepalive while the object stays troubled.
    if (first)
      log.warn("a stream's liveness check had no answer; the stream goes on and asks again", { error: String(e) });
    return true;
  };
  return () => {
    if (ended.has(init.id)) return false;
    const now = Date.now();
    if (now < checkAt) return true;
    // The RPC's promise (its result also disposable) read as the object's plain answer.
    const asked: Promise<false | { until: number }> = sessionStub(env, init.id).alive(init);
    return bounded(asked, waitMs).then(answered, (e: unknown) => unanswered(now, e));
  };
}

/** Forgets a session this isolate learned has ended (DELETE here, a failed check, or its shard refusing its stream). */
export function markEnded(id: string): void {
  live.delete(id);
  ended.set(id, true);
}
