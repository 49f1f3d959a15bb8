/**
 * Re-lists every enabled upstream through its own object, all in parallel: the cron trigger
 * (index.ts) and the admin API (POST /admin/upstreams/refresh, and after a configuration change).
 */
import { upstreamStub } from '../stubs.js';
import { upstreamConfigs } from './config.js';
import type { UpstreamConfig } from './schema.js';
import type { RefreshResult } from './upstream-object.js';

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
