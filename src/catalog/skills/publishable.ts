/**
 * Whether a skill set may be published (docs/skills.md): every record valid, and every file it
 * names already in KV by its digest, with the size the record declares, so a skill is never
 * visible with bytes missing or a size the bytes do not have: the 4 MiB and 16 MiB limits count
 * sizes, resources/list shows them, and resources/read refuses a file over 4 MiB by its size
 * alone. A dry run only plans: the CLI shows the diff before it uploads.
 */
import { capIssues } from '../issues.js';
import type { Issue, SkillRecord } from '../types.js';
import type { FileSizes } from '../skill-files-table.js';
import { normalizeSkill, validateSkillSet } from './validate.js';

export type Publishable = { ok: true; records: SkillRecord[] } | { ok: false; reason: 'invalid'; issues: Issue[] };

const NOT_UPLOADED =
  'no file with this digest was uploaded; upload it first (one uploaded without the gateway recording it may take up to a minute to reach the writer from another location: retry then)';
const NOT_CHECKED =
  'not yet confirmed as uploaded: the gateway has no record of its upload, and one publish looks up only so many such files in KV; upload it (again: that is harmless) or publish again';

/** The stored sizes of files by digest, as the writer's table of stored files knows them (skill-files-table.ts). */
export type SizesOf = (digests: string[]) => Promise<FileSizes>;

export async function publishableSkills(sizesOf: SizesOf, skills: unknown[], dryRun: boolean): Promise<Publishable> {
  const issues = validateSkillSet(skills);
  if (issues.length) return { ok: false, reason: 'invalid', issues };
  const input = skills as SkillRecord[];
  // At most MAX_DIGESTS of them (validateSkillSet), so even a dry run never plans a publish that cannot be made.
  const digests = new Set(input.flatMap((r) => r.files.map((f) => f.digest)));
  const records = input.map(normalizeSkill);
  if (dryRun) return { ok: true, records };
  const { sizes, unchecked } = await sizesOf([...digests]);
  const later = new Set(unchecked);
  for (const d of digests)
    if (sizes.get(d) === undefined) issues.push({ path: d, message: later.has(d) ? NOT_CHECKED : NOT_UPLOADED });
  input.forEach((r, i) =>
    r.files.forEach((f, j) => {
      const size = sizes.get(f.digest);
      if (size !== undefined && size !== f.size)
        issues.push({
          path: `skills[${i}]: files[${j}].size`,
          message: `${r.name}/${f.path} declares ${f.size} bytes; the file uploaded with its digest is ${size} bytes`,
        });
    }),
  );
  // Capped here, not only in the answer: the list goes back from the writer in one RPC.
  return issues.length ? { ok: false, reason: 'invalid', issues: capIssues(issues) } : { ok: true, records };
}
