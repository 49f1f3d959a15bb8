/**
 * Re-lists every enabled upstream through its own object, all in parallel: the cron trigger
 * (index.ts) and the admin API (POST /admin/upstreams/refresh, and after a configuration change).
 */
import { log } from '../../lib/log.js';
import { catalogWriter, upstreamStub } from '../stubs.js';
import { upstreamConfigs } from './config.js';
import type { UpstreamConfig } from './schema.js';
import type { RefreshResult } from './report.js';

/** Refreshes every enabled upstream in parallel (of `configs`, else as read now); results without the snapshots. */
export async function refreshUpstreams(
  env: Env,
  configs?: UpstreamConfig[],
): Promise<Record<string, Omit<RefreshResult, 'snapshot'>>> {
  const ups = (configs ?? (await upstreamConfigs(env, true))).filter((u) => u.enabled);
  const results = await Promise.all(ups.map((u) => upstreamStub(env, u.id).refresh(u.id)));
  return Object.fromEntries(
    ups.map((u, i) => {
      const { snapshot: _snapshot, ...r } = results[i]!;
      return [u.id, r];
    }),
  );
}

/**
 * The cron's run. First the catalog writer squares its listings with the configuration read now:
 * an UPSTREAMS var changed by a deploy reaches no admin route, and until then the served catalog
 * would keep a removed upstream's prompts and an upstream's old groups. Then every upstream is
 * re-listed, whether or not that step failed.
 */
export async function scheduledRefresh(env: Env): Promise<void> {
  try {
    const { removed } = await catalogWriter(env).reconcileUpstreams();
    if (removed.length) log.info('upstreams no longer configured left the catalog', { removed });
  } catch (e) {
    log.error('reconciling the configured upstreams failed', { error: String(e) });
  }
  await refreshUpstreams(env);
}
