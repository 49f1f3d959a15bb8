/**
 * One upstream's report (report.ts) merged into its stored state, and what
 * that merge means for the catalog: which lists changed (so clients get
 * `list_changed` for them), and whether only the snapshot must change (a
 * stale mark set or cleared, new cache hints), which makes a new generation
 * without notifying anyone. The CatalogWriter applies a batch of these as
 * one change.
 */
import type { ChangedList } from '../../session/events.js';
import type { CacheHints } from '../hints.js';
import type { UpstreamState } from '../types.js';
import type { ListReport } from './report.js';
import { nextSkills } from './skills.js';

export interface Merged {
  readonly state: UpstreamState;
  /** The lists whose contents or visibility changed. */
  readonly lists: ReadonlySet<ChangedList>;
  /** The catalog changed (some list did): a new generation, announced. */
  readonly changed: boolean;
  /** The snapshot changed but no list did: a new generation, not announced. */
  readonly flipped: boolean;
}

/** Group lists as configured (order kept: reordering them is a configuration change too, and harmless). */
export const sameGroups = (a: readonly string[] | undefined, b: readonly string[] | undefined) =>
  (a ?? []).join(',') === (b ?? []).join(',');

const sameHints = (a: CacheHints | undefined, b: CacheHints | undefined) =>
  a?.ttlMs === b?.ttlMs && a?.cacheScope === b?.cacheScope;

/**
 * `digest`: of the report's prompts (undefined when listing them failed). A failure keeps the last
 * good listing and its hints, marked stale: a failure never widens who may see what. Skills are
 * listed and fail apart from the prompts (skills.ts nextSkills).
 */
export function mergeReport(
  prev: UpstreamState | undefined,
  r: ListReport,
  digest: string | undefined,
  stamp: string,
): Merged {
  const lists = new Set<ChangedList>();
  const skills = nextSkills(prev, r);
  if (skills.changed) lists.add('skills');
  // A skills listing that starts or stops failing is a new generation (stale marks), not a list change;
  // so are new skills hints, as new prompt hints are (below): the content's hints narrow by both.
  let flipped =
    skills.changed ||
    (prev?.skillsError === undefined) !== (skills.state.skillsError === undefined) ||
    !sameHints(prev?.skillsHints, skills.state.skillsHints);
  // A new prefix or new groups move or re-guard its skills too.
  const moved = prev?.prefix !== r.prefix || !sameGroups(prev?.groups, r.groups);
  if (moved && (prev?.skills?.length || skills.state.skills?.length)) lists.add('skills');
  let state: UpstreamState;
  if (r.prompts && digest !== undefined) {
    if (prev?.digest !== digest || moved) lists.add('prompts');
    // New hints are not a list change, but the next snapshot must carry them (a scope may narrow).
    flipped ||= prev?.ok === false || !sameHints(prev?.hints, r.hints);
    state = {
      id: r.id,
      prefix: r.prefix,
      prompts: r.prompts,
      digest,
      ok: true,
      lastSuccess: stamp,
      lastError: prev?.lastError ?? null,
      ...skills.state,
    };
    if (r.hints) state.hints = r.hints;
    if (r.groups) state.groups = r.groups;
    if (r.skipped) state.skipped = r.skipped;
  } else {
    flipped ||= prev?.ok !== false;
    // Who sees the upstream follows its configuration at once, even while it fails: a visibility change.
    if (!sameGroups(prev?.groups, r.groups)) lists.add('prompts');
    // The last good listing stays served (marked stale), and so do its hints.
    const {
      groups: _old,
      skills: _s,
      skillsHints: _h,
      skillsError: _e,
      ...kept
    } = prev ?? { prompts: [], digest: '', lastSuccess: null };
    state = {
      ...kept,
      ...skills.state,
      ...(r.groups && { groups: r.groups }),
      id: r.id,
      prefix: r.prefix,
      ok: false,
      lastError: r.error ?? 'unknown error',
    };
  }
  return { state, lists, changed: lists.size > 0, flipped };
}
