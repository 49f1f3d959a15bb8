/**
 * The legacy era's GET (legacy.ts): a session's standalone SSE stream, new or resumed with
 * Last-Event-ID, kept open only while both the session and the caller's credential stay valid.
 */
import { streamHooks } from '../catalog/catch-up.js';
import { currentCatalog } from '../catalog/store.js';
import { featuresOf } from '../lib/versions.js';
import { markEnded, sessionInit, sessionLiveness } from '../session/sessions.js';
import { parseEventId } from '../session/events.js';
import { shardIndex } from '../session/fanout.js';
import { isStreamKey, newStreamKey } from '../session/stream-key.js';
import { openLegacyStream } from '../session/stream.js';
import { streamLimits } from '../session/stream-limits.js';
import type { RequestScope } from '../lib/scope.js';
import { credentialCheck, principalIdOf } from '../lib/caller.js';
import { ErrorCode, HttpError, sessionNotFound } from './errors.js';
import { checkVersionHeader, requireSession } from './legacy-session.js';

/** GET: the session's standalone SSE stream, new or resumed with Last-Event-ID. No Durable Object is written to open it. */
export async function legacyGet(t: RequestScope, lastEventId: string | undefined): Promise<Response> {
  checkVersionHeader(t.protocolVersion);
  const version = await requireSession(t);
  const init = await sessionInit(t.secret, t.sessionId!, principalIdOf(t.principal));
  if (!init) throw sessionNotFound();
  let key: string;
  let since: number | undefined;
  if (lastEventId !== undefined) {
    const at = parseEventId(lastEventId);
    if (!at || !(await isStreamKey(t.secret, init.id, at.key)))
      throw new HttpError(
        400,
        ErrorCode.Transport,
        "Bad Request: Last-Event-ID does not name an event of this session's stream",
      );
    ({ key, generation: since } = at);
  } else key = await newStreamKey(t.secret, init.id);
  const credential = credentialCheck(t.principal);
  const session = sessionLiveness(t.env, init, t.cfg.sessionTtlMs);
  const stream = await openLegacyStream({
    env: t.env,
    sessionId: init.id,
    shard: shardIndex(init.id, t.cfg.registryShards),
    limits: streamLimits(t),
    key,
    since,
    // A new stream starts no later than the catalog this isolate serves: the client's list may be of it.
    ...(since === undefined && { listedAt: (await currentCatalog(t)).generation }),
    // Not on a resume: the client holds its last event id, and a priming event would repeat it
    // (event ids are unique across the session's streams).
    priming: featuresOf(version).priming && since === undefined,
    keepaliveMs: t.cfg.sseKeepaliveMs,
    retryMs: t.cfg.sseRetryMs,
    // The session (DELETE elsewhere, expiry) and the credential: either ending ends the stream.
    stillValid: credential ? () => allTrue(session(), credential()) : session,
    tools: t.cfg.toolsMirror,
    resources: t.cfg.skills,
    ...streamHooks(t),
  });
  if (stream) return stream;
  // Ended on another isolate after this one's liveness memo vouched for it: its shard knows.
  markEnded(init.id);
  throw sessionNotFound();
}

/** Both checks. One already false decides; the other's answer, still coming, is read all the same (a rejection must not go unhandled). */
export function allTrue(a: boolean | Promise<boolean>, b: boolean | Promise<boolean>): boolean | Promise<boolean> {
  if (a === false || b === false) {
    for (const p of [a, b]) if (p instanceof Promise) p.catch(() => undefined);
    return false;
  }
  if (a === true && b === true) return true;
  return Promise.all([a, b]).then(([x, y]) => x && y);
}
