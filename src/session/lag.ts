/**
 * Noticing a stream socket that went quiet without closing: a half-open
 * connection, or an object restarted without its Worker hearing of it. No
 * frame and no close arrive, so the only sign is that the stream trails the
 * newest change announced as of the catalog its own isolate already serves
 * (catalog/catch-up.ts servedForStreams). The bridge (bridge.ts)
 * asks at each keepalive; a lag that outlasts the grace (the longest a
 * delivery may take) means the socket lost a change, and a reconnect gets it
 * replayed. Once per generation, so a shard that never had the change (its
 * fan-out still retrying) is not asked for it at every keepalive.
 */

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
