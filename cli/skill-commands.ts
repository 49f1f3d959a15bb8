/**
 * The CLI's skill side (docs/skills.md): push uploads the files the gateway lacks, then publishes
 * the records that name them (pull.ts writes every published skill folder back byte for byte);
 * history and rollback take `--skill`. push.ts calls these beside the prompts' own steps.
 */
import { CliError, type AdminClient } from './api.js';
import { loadSkills, type SkillFiles } from './skills.js';

/** Loads every skill folder of `dir`, or throws one error listing every problem. */
export function loadValidSkills(dir: string): SkillFiles {
  const loaded = loadSkills(dir);
  if (loaded.issues.length)
    throw new CliError(
      `${loaded.issues.length} problem(s) in skills under ${dir}/, nothing published:\n${loaded.issues.map((i) => `  ${dir}/${i.path}: ${i.message}`).join('\n')}`,
    );
  return loaded;
}

/** Uploads only what the gateway does not hold (files are stored once, by digest). */
export async function uploadMissing(api: AdminClient, skills: SkillFiles): Promise<number> {
  if (!skills.bytes.size) return 0; // no skill: nothing to ask about
  const missing = await api.missingFiles([...skills.bytes.keys()]);
  for (const digest of missing) await api.uploadFile(digest, skills.bytes.get(digest)!);
  return missing.length;
}
