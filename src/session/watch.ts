/**
 * What a stream watches at each keepalive (bridge.ts), besides its client:
 *
 * - That it may still run (`validityWatch`): the session and the credential
 *   that opened it, asked one question at a time.
 * - That its socket still delivers (`lagWatch`). A socket can go quiet
 *   without closing: a half-open connection, or an object restarted without
 *   its Worker hearing of it. No frame and no close arrive, so the only sign
 *   is that the stream trails the newest change announced as of the catalog
 *   its own isolate already serves (catalog/catch-up.ts servedForStreams). A
 *   lag that outlasts the grace (the longest a delivery may take) means the
 *   socket lost a change, and a reconnect gets it replayed. Once per
 *   generation, so a shard that never had the change (its fan-out still
 *   retrying) is not asked for it at every keepalive.
 */

/**
 * What the isolate holding a stream lends every stream kind (rpc builds it once:
 * catalog/catch-up.ts streamHooks): its catalog, to catch up with before a change is announced and
 * to compare the stream's position with, how long a lag may last, and the client's signal.
 */
export interface StreamHooks {
  /** Run before a change is announced, with its generation: the Worker catches up with that catalog first. */
  catchUp?: (generation: number) => Promise<void> | undefined;
  /** The newest change announced as of this isolate's catalog, asked at each keepalive. */
  served?: () => number | undefined;
  /** How long the stream may trail `served` before its socket is taken for lost (bridge.ts `lagGraceMs`). */
  lagGraceMs?: number;
  /** The client's request signal (bridge.ts `clientGone`). */
  clientGone?: AbortSignal | undefined;
}

/** The bridge options the hooks give a stream whose position (the generation it carried) is `carried`. */
export function watchedBy(h: StreamHooks, carried: () => number | undefined) {
  return {
    clientGone: h.clientGone,
    ...(h.lagGraceMs !== undefined && { lagGraceMs: h.lagGraceMs }),
    lagging: () => behind(h.served?.(), carried()),
  };
}

/** The generation served, when the stream has carried less; undefined when level (or nothing to compare yet). */
export const behind = (served: number | undefined, carried: number | undefined): number | undefined =>
  served !== undefined && carried !== undefined && served > carried ? served : undefined;

/**
 * A keepalive's check. `lagging` names a generation the stream has not carried; `lost` is called
 * when one has been lagging for `graceMs`, and answers whether it could act (false: a reconnect
 * is already under way, so the next keepalive asks again).
 */
export function lagWatch(
  lagging: () => number | undefined,
  graceMs: number,
  lost: (generation: number) => boolean,
): () => void {
  // The lagging generation being timed (-1: none), since when, and the newest one acted on.
  let suspect = -1;
  let suspectAt = 0;
  let swept = -1;
  return () => {
    const g = lagging();
    if (g === undefined) suspect = -1;
    if (g === undefined || g <= swept) return;
    const now = Date.now();
    if (suspect <= swept) {
      suspect = g;
      suspectAt = now;
    } else if (now - suspectAt >= graceMs && lost(g)) swept = g;
  };
}

/**
 * A keepalive's question whether the stream may go on (`stillValid`: lib/caller.ts credentialCheck,
 * the session's liveness). `invalid` runs on a no, a throw or a rejection: a check for which no
 * answer is not a no (the session's object failing: sessions.ts sessionLiveness) resolves that
 * itself. One question at a time: a slow recheck is not asked again until it has answered.
 */
export function validityWatch(stillValid: () => boolean | Promise<boolean>, invalid: () => void): () => void {
  let asking = false;
  return () => {
    if (asking) return;
    let valid: boolean | Promise<boolean>;
    try {
      valid = stillValid();
    } catch {
      valid = false;
    }
    if (valid === false) return invalid();
    if (valid === true) return;
    asking = true;
    valid.then(
      (ok) => ((asking = false), ok || invalid()),
      () => ((asking = false), invalid()),
    );
  };
}
