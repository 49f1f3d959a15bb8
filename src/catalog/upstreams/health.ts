/**
 * Every configured upstream's health as /status and the catalog page show it: one computation,
 * so the two never disagree. The state is derived from the writer's last listing of each upstream
 * (healthy, stale, failing) and the configuration (disabled, never listed).
 */
import type { SkippedPrompt, UpstreamState } from '../types.js';
import type { UpstreamConfig } from './schema.js';

export interface UpstreamHealth {
  id: string;
  prefix: string;
  enabled: boolean;
  state: 'disabled' | 'never_listed' | 'healthy' | 'stale' | 'failing';
  prompts: number;
  lastSuccess: string | null;
  lastError: string | null;
  fault: string | null;
  /** Upstreams declaring the Skills extension: how many skills its last good listing has. */
  skills?: number;
  /** Why its last skills listing failed (its skills are then stale); the prompts may be healthy. */
  skillsError?: string;
  /** Prompts its last good listing has that are not published under their name, and why (an alias takes it, …). */
  skipped?: SkippedPrompt[];
}

/** The health of each configured upstream (in configuration order), given the writer's listings. */
export function upstreamHealth(configs: readonly UpstreamConfig[], listed: readonly UpstreamState[]): UpstreamHealth[] {
  const states = new Map(listed.map((u) => [u.id, u]));
  return configs.map((u) => {
    const s = states.get(u.id);
    return {
      id: u.id,
      prefix: u.prefix,
      enabled: u.enabled,
      state: !u.enabled ? 'disabled' : !s ? 'never_listed' : s.ok ? 'healthy' : s.lastSuccess ? 'stale' : 'failing',
      prompts: s?.prompts.length ?? 0,
      lastSuccess: s?.lastSuccess ?? null,
      lastError: s?.lastError ?? null,
      // The fault kind leads lastError (timeout, http_500, invalid_json, too_large, redirect_refused, closed, ...).
      fault: s && !s.ok && s.lastError ? (/^([a-z0-9_]+):/.exec(s.lastError)?.[1] ?? null) : null,
      // Only for upstreams with skills: omitted for the others.
      ...(s?.skills && { skills: s.skills.length }),
      ...(s?.skillsError !== undefined && { skillsError: s.skillsError }),
      ...(s?.skipped?.length && { skipped: s.skipped }),
    };
  });
}

/**
 * The groups that guard each configured upstream, by id: who may see it, its health row included.
 * The writer's first (upstream-listings.ts keeps them as configured now); this isolate's copy of
 * the configuration, which may be older, speaks only for an upstream the writer has no listing of.
 * Else an upstream just guarded would stay visible to everyone until the copy caught up.
 */
export function guardingGroups(
  configs: readonly UpstreamConfig[],
  listed: readonly UpstreamState[],
): Map<string, readonly string[] | undefined> {
  const writers = new Map(listed.map((u) => [u.id, u.groups]));
  return new Map(configs.map((u) => [u.id, writers.has(u.id) ? writers.get(u.id) : u.groups]));
}
