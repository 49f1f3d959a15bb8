/**
 * Upstream health on the index, as /status computes it, spliced into every index page, a cache hit
 * too (routes/web.ts). It is a live extra: a CatalogWriter that fails or hangs makes it unknown, as
 * /status reports it, and never fails or stalls the page.
 */
import { catalogWriter } from '../catalog/stubs.js';
import { upstreamConfigs } from '../catalog/upstreams/config.js';
import { guardingGroups, upstreamHealth } from '../catalog/upstreams/health.js';
import { bounded, STATUS_CALL_MS } from '../lib/bounded.js';
import type { HealthRow } from '../web/types.js';

/** Upstream health as /status computes it, kept per isolate for a few seconds (pages are read often). */
const HEALTH_MS = 5_000;
let healthMemo: { at: number; rows: Promise<HealthRow[]> } | undefined;

/** Forgets the kept health (tests that change the upstreams; an isolate relearns it within HEALTH_MS). */
export function forgetHealth(): void {
  healthMemo = undefined;
}

/**
 * The health rows, or 'unknown' when the writer fails or has not answered within /status's bound
 * of being asked. A failure is forgotten at once; a call still pending stays kept for HEALTH_MS, so
 * pages meanwhile do not each ask a writer that hangs, and none waits past the bound.
 */
export async function health(env: Env): Promise<HealthRow[] | 'unknown'> {
  if (!healthMemo || Date.now() - healthMemo.at >= HEALTH_MS) {
    const asked = { at: Date.now(), rows: healthRows(env) };
    asked.rows.catch(() => {
      if (healthMemo === asked) healthMemo = undefined;
    });
    healthMemo = asked;
  }
  const { at, rows } = healthMemo;
  try {
    return await bounded(rows, Math.max(0, at + STATUS_CALL_MS - Date.now()));
  } catch {
    return 'unknown';
  }
}

async function healthRows(env: Env): Promise<HealthRow[]> {
  const [configs, listed] = await Promise.all([upstreamConfigs(env), catalogWriter(env).upstreams()]);
  const groups = guardingGroups(configs, listed);
  return upstreamHealth(configs, listed).map((u) => ({
    id: u.id,
    state: u.state,
    prompts: u.prompts,
    lastSuccess: u.lastSuccess,
    fault: u.fault,
    groups: groups.get(u.id),
  }));
}
