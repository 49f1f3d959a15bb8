/**
 * Upstream skills (SEP-2640, docs/upstreams.md "Upstream skills"): an upstream that declares the Skills
 * extension is listed with `skills/list` too, its entries mounted and checked by skill-entries.ts, and
 * its skills kept in its state beside its prompts. A skills failure never costs the prompts listing,
 * nor the reverse.
 */
import { log } from '../../lib/log.js';
import { canonical } from '../diff.js';
import { pagedHints, readHints, type CacheHints } from '../hints.js';
import type { UpstreamSkill, UpstreamState } from '../types.js';
import type { UpstreamClient } from './client.js';
import type { UpstreamConfig } from './schema.js';
import { describeFault, UpstreamError } from './errors.js';
import { declaresSkills, mapSkills, MAX_SKILL_PAGES, MAX_UPSTREAM_SKILLS, noSkillsKept } from './skill-entries.js';
import { type Json } from './wire.js';
import { deadline, type Deadline } from './deadline.js';

/** The skills half of a listing: `skills` when listed, `skillsError` when that failed; neither when not declared. */
export interface SkillsOutcome {
  skills?: UpstreamSkill[];
  /** The cache hints of its skills/list pages (modern upstreams), narrowed as prompt-pages.ts narrows the prompts'. */
  skillsHints?: CacheHints;
  skillsError?: string;
}

/**
 * Every `skills/list` page (bounded like prompts/list, and like it cut at the page bound), within the
 * operation's deadline; never throws.
 * Each page is mapped as it arrives: the listing keeps its mapped skills (bounded in bytes), never the pages.
 */
export async function listSkills(client: UpstreamClient, u: UpstreamConfig, d: Deadline): Promise<SkillsOutcome> {
  const kept = noSkillsKept();
  let listed = 0;
  const pageHints: (CacheHints | undefined)[] = [];
  const done = (): SkillsOutcome => {
    const skillsHints = pagedHints(pageHints);
    return skillsHints ? { skills: kept.skills, skillsHints } : { skills: kept.skills };
  };
  let cursor: string | undefined;
  try {
    for (let page = 1; ; page++) {
      const r = await client.request('skills/list', cursor ? { cursor } : {}, d);
      if (!Array.isArray(r.skills)) throw new UpstreamError('protocol', 'skills/list result has no skills array');
      pageHints.push(readHints(r));
      // Entries past the cap are not read into the listing (mapSkills would skip them anyway).
      const entries = (r.skills as unknown[]).slice(0, MAX_UPSTREAM_SKILLS - listed);
      listed += entries.length;
      mapSkills(u, entries, kept);
      cursor = typeof r.nextCursor === 'string' && r.nextCursor ? r.nextCursor : undefined;
      if (!cursor || listed >= MAX_UPSTREAM_SKILLS) return done();
      // Cut there like prompts/list (prompt-pages.ts): the skills read are kept, not the whole listing lost.
      if (page >= MAX_SKILL_PAGES) {
        log.warn('upstream skills listing cut past its page bound', {
          upstream: u.id,
          pages: page,
          kept: kept.skills.length,
        });
        return done();
      }
    }
  } catch (e) {
    const skillsError = describeFault(e);
    log.warn('upstream skills list failed', { upstream: u.id, error: skillsError });
    return { skillsError };
  }
}

/** What one listing of an upstream gives: its prompts (or why not) and its skills (when it declares them). */
export interface Listed {
  listing?: { prompts: Json[]; hints?: CacheHints };
  error?: unknown;
  skills: SkillsOutcome;
}

/**
 * Lists an upstream's prompts and, when it declares the extension, its skills, side by side within one
 * deadline (the handshake included). An upstream that declares skills but not prompts is not asked for
 * prompts (it would answer "method not found"). Never throws: a failed half is reported as such.
 */
export async function listUpstream(client: UpstreamClient, u: UpstreamConfig): Promise<Listed> {
  const d = deadline(u.timeoutMs);
  let caps: Json;
  try {
    caps = await client.capabilities(d);
  } catch (error) {
    return { error, skills: {} };
  }
  const skills = declaresSkills(caps);
  const [prompts, listed] = await Promise.all([
    !skills || caps.prompts !== undefined
      ? client.listing(undefined, d).then(
          (listing) => ({ listing }),
          (error: unknown) => ({ error }),
        )
      : { listing: { prompts: [] } },
    skills ? listSkills(client, u, d) : {},
  ]);
  return { ...prompts, skills: listed };
}

/**
 * The skills part of an upstream's next state, given its last one and a report: a fresh listing replaces
 * the last; a failed one keeps the last good listing and its hints (a failure never widens them), marked
 * by `skillsError`; an upstream that no longer declares the extension has none. `changed` says whether
 * what clients see changed (a list change); a change of hints alone is not one (merge-report.ts).
 *
 * A report with neither half and an `error` never reached the question: its handshake failed or its
 * breaker was open, so whether it still declares the extension is unknown. Its skills stay as its
 * prompts do, the last good listing marked stale, rather than vanishing for one bad moment.
 */
export function nextSkills(
  prev: Pick<UpstreamState, 'skills' | 'skillsHints' | 'skillsError'> | undefined,
  r: SkillsOutcome & { error?: string },
): { state: Pick<UpstreamState, 'skills' | 'skillsHints' | 'skillsError'>; changed: boolean } {
  const before = prev?.skills ?? [];
  if (r.skills)
    return {
      state: { skills: r.skills, ...(r.skillsHints && { skillsHints: r.skillsHints }) },
      changed: canonical(before) !== canonical(r.skills),
    };
  const unasked = r.skillsError === undefined && r.error !== undefined;
  if (unasked && prev?.skills === undefined && prev?.skillsError === undefined) return { state: {}, changed: false };
  if (r.skillsError !== undefined || unasked)
    return {
      state: {
        ...(prev?.skills && { skills: prev.skills }),
        ...(prev?.skillsHints && { skillsHints: prev.skillsHints }),
        skillsError: r.skillsError ?? r.error!,
      },
      changed: false,
    };
  return { state: {}, changed: before.length > 0 };
}
