/**
 * GET /status: the catalog generation and every upstream's health, for
 * dashboards and on-call. No secrets: upstream headers never appear, and
 * errors are the client's own messages, led by the fault kind (errors.ts),
 * also given alone as `fault`. `feed` is the change feed's progress: the
 * generation last fanned out to every stream, and the one still pending (null
 * once every change is announced), so a client can wait for a quiet feed.
 * `upstreamProblems` says why configured upstreams were left out (config.ts), to an admin.
 * `collisions` name prompts, so they follow the caller's view like every
 * listing: a caller that presents no valid credential sees only what everyone may.
 * `live` counts open streams at the registry shards and `lastFanout` is the feed's
 * last fan-out (session/live-status.ts), `errors` the failed requests by class over the
 * last hour (usage/query.ts). A shard, the feed, the usage store or the catalog writer (upstream
 * health and collisions) that fails or hangs is reported unknown, and the page still answers.
 */
import { Hono, type Context } from 'hono';
import { AuthError } from '../auth/errors.js';
import { ApiError } from './api-error.js';
import { authenticateGuarded } from './token-guesses.js';
import { currentCatalog, readGeneration } from '../catalog/store.js';
import { upstreamConfigs, upstreamProblems } from '../catalog/upstreams/config.js';
import { guardingGroups, upstreamHealth } from '../catalog/upstreams/health.js';
import { collisionsSeen } from '../catalog/collisions.js';
import { catalogWriter } from '../catalog/stubs.js';
import { feedProgress, lastFanout, liveCounts } from '../session/live-status.js';
import { errorsSince } from '../usage/query.js';
import { HOUR_MS } from '../usage/store.js';
import { statusFigure } from '../lib/bounded.js';
import { announce, authorize } from '../auth/authenticate.js';
import { ANONYMOUS } from '../auth/principal.js';
import { principalSees } from '../catalog/views.js';
import { configOf } from '../lib/config.js';
import type { Principal } from '../lib/scope.js';
import { clientRateLimit } from './limits.js';
import { scopeOf } from './scope.js';
import { AuthConfigError } from '../auth/config-checks.js';
import { authConfigOf } from '../auth/config.js';
import type { AppEnv } from '../env.js';

export const status = new Hono<AppEnv>();

// Each answer asks every registry shard, the feed, the usage store and the writer: a per-client budget.
status.use('*', clientRateLimit('always'));

/** Which access-control methods are on; `configured: false` when AUTH is unset or a var is bad (named, not shown). */
function authStatus(env: Env) {
  try {
    const cfg = authConfigOf(env);
    announce(cfg);
    if (cfg.none) return { methods: ['none'], configured: true, none: true };
    return { methods: [...cfg.methods], configured: cfg.configured };
  } catch (e) {
    if (e instanceof AuthConfigError) return { methods: [], configured: false, error: `invalid ${e.variable}` };
    throw e;
  }
}

/**
 * Who asks, if they say: /status itself is open, so a refused or missing credential, or one
 * without the read scope, is simply nobody in particular (its groups show nothing more). A
 * credential in the URL is refused here as everywhere (400): answering would teach clients to
 * send tokens where logs keep them.
 */
async function callerOf(c: Context<AppEnv>): Promise<Principal> {
  try {
    const scope = scopeOf(c);
    const p = await authenticateGuarded(c, scope);
    // The listing's own check (GET /prompts): a credential that may not read it sees what anyone sees.
    authorize(scope, p, 'prompts');
    return p;
  } catch (e) {
    // A credential in the URL, and too many guesses at ADMIN_TOKEN (token-guesses.ts), are refused.
    if ((e instanceof AuthError && e.status === 400) || e instanceof ApiError) throw e;
    return ANONYMOUS;
  }
}

/**
 * Failed requests by error.type over the last hour, as the usage store keeps them: whole UTC
 * hours, so `since` is the start of the previous hour and the window is one to two hours.
 * Counts reach the store within USAGE_FLUSH_MS. 'unknown' when the store does not answer.
 */
async function recentErrors(env: Env): Promise<{ since: string; byClass: Record<string, number> } | 'unknown'> {
  const since = Math.floor((Date.now() - HOUR_MS) / HOUR_MS) * HOUR_MS;
  const byClass = await statusFigure(errorsSince(env, since));
  return byClass === 'unknown' ? byClass : { since: new Date(since).toISOString(), byClass };
}

/**
 * Upstream health and collisions, from the CatalogWriter's listings, within the same bound as the
 * live figures: a writer that fails or hangs makes both 'unknown', not a stalled or failed page.
 * A caller without an accepted credential, where access control is on (or misconfigured), gets
 * 'restricted' for both: upstream ids, prefixes, prompt counts, errors and clashing names are for
 * readers, as the prompts themselves are (/prompts and /mcp answer such a caller 401). `open`:
 * access control is off (AUTH=none), so anyone is a reader.
 */
async function writerFigures(c: Context<AppEnv>, caller: Promise<Principal>, open: boolean) {
  const writer = catalogWriter(c.env);
  // The local prompts as this isolate serves them (at most CATALOG_REFRESH_MS old): asking the writer
  // for every prompt's text on each /status would make an open page a load on the catalog's one writer.
  const read = await statusFigure(Promise.all([writer.upstreams(), currentCatalog(scopeOf(c))]));
  if (read === 'unknown') return { upstreams: read, collisions: read };
  const [listed, catalog] = read;
  const who = await caller;
  if (who === ANONYMOUS && !open) return { upstreams: 'restricted' as const, collisions: 'restricted' as const };
  const sees = (groups: readonly string[] | undefined) => principalSees(who, groups);
  // An upstream guarded by groups the caller is not in is not shown at all: not even how many prompts it has.
  const configs = await upstreamConfigs(c.env);
  const guardedBy = guardingGroups(configs, listed);
  const health = upstreamHealth(
    configs.filter((u) => sees(guardedBy.get(u.id))),
    listed,
  );
  // The skipped prompts name upstream prompts no client can reach, and what an alias maps: the operator's.
  const upstreams = who.admin || open ? health : health.map(({ skipped: _, ...h }) => h);
  const { localPrefix, separator } = configOf(c.env);
  const collisions = collisionsSeen(
    {
      prompts: catalog.snapshot.prompts,
      upstreams: listed,
      localPrefix,
      separator,
    },
    sees,
  );
  return { upstreams, collisions };
}

status.get('/', async (c) => {
  // Every figure starts at once; each object's reports 'unknown' rather than failing or stalling the page.
  const liveFigures = Promise.all([liveCounts(c.env), lastFanout(c.env), recentErrors(c.env), feedProgress(c.env)]);
  // Awaited inside writerFigures, after its own reads: a refusal (429, 400) must not count as unhandled meanwhile.
  const caller = callerOf(c);
  caller.catch(() => undefined);
  const auth = authStatus(c.env);
  const { upstreams, collisions } = await writerFigures(c, caller, auth.none === true);
  // writerFigures may not have waited for it (the writer did not answer): its refusal still stands.
  const who = await caller;
  // The operator's: they may name an upstream a reader's groups do not show (access control off: anyone's).
  const problems = who.admin || auth.none ? await upstreamProblems(c.env) : 'restricted';
  const [live, fanout, errors, feed] = await liveFigures;
  // What a caller sees depends on its groups, and the figures are live: no cache keeps a copy.
  c.header('cache-control', 'no-store');
  return c.json({
    generation: await readGeneration(c.env.PROMPTS),
    auth,
    feed,
    upstreams,
    upstreamProblems: problems,
    collisions,
    live,
    lastFanout: fanout,
    errors,
  });
});
