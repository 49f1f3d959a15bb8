/**
 * Whether a skill set may be published (docs/skills.md): every record valid, and every file it
 * names already in KV by its digest, so a skill is never visible with bytes missing. A dry run
 * only plans: the CLI shows the diff before it uploads anything.
 */
import type { Issue, SkillRecord } from '../types.js';
import { missingFiles } from './file-store.js';
import { normalizeSkill, validateSkillSet } from './validate.js';

export type Publishable = { ok: true; records: SkillRecord[] } | { ok: false; reason: 'invalid'; issues: Issue[] };

export async function publishableSkills(kv: KVNamespace, skills: unknown[], dryRun: boolean): Promise<Publishable> {
  const issues = validateSkillSet(skills);
  if (issues.length) return { ok: false, reason: 'invalid', issues };
  const records = (skills as SkillRecord[]).map(normalizeSkill);
  const missing = dryRun
    ? []
    : await missingFiles(
        kv,
        records.flatMap((r) => r.files.map((f) => f.digest)),
      );
  if (missing.length)
    return {
      ok: false,
      reason: 'invalid',
      issues: missing.map((d) => ({
        path: d,
        message:
          'no file with this digest was uploaded; upload it first (a file uploaded from another location may take up to a minute to reach this one: retry then)',
      })),
    };
  return { ok: true, records };
}
