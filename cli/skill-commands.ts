/**
 * The CLI's skill side (docs/skills.md): push uploads the files the gateway lacks, then publishes
 * the records that name them; pull writes every published skill folder back byte for byte;
 * history and rollback take `--skill`. prompt-commands.ts calls these beside the prompts' own steps.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CliError, type AdminClient, type PublishResult } from './api.js';
import { digestOf } from '../src/catalog/skills/file-store.js';
import { stringify as toYaml } from 'yaml';
import type { SkillRecord } from '../src/catalog/types.js';
import { loadSkills, SIDECAR, type SkillFiles } from './skills.js';

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
  const missing = await api.missingFiles([...skills.bytes.keys()]);
  for (const digest of missing) await api.uploadFile(digest, skills.bytes.get(digest)!);
  return missing.length;
}

/** Publishes the directory's skills, after their files; `dryRun` uploads nothing and returns the diff. */
export async function pushSkills(
  api: AdminClient,
  skills: SkillFiles,
  opts: { dryRun?: boolean; prune?: boolean },
): Promise<{ result: PublishResult; uploaded: number }> {
  if (opts.dryRun) return { result: await api.publishSkills(skills.records, opts), uploaded: 0 };
  const uploaded = await uploadMissing(api, skills);
  // Unchanged skills make no version and no generation: the writer compares them.
  return { result: await api.publishSkills(skills.records, { prune: opts.prune }), uploaded };
}

/**
 * The folder's `.promptgate.yaml`, which push reads the groups from (skills.ts): without it a
 * pulled skill pushed back would be shown to everyone. None when the skill has no groups, and a
 * stale one from an earlier pull is removed, for the same reason the other way round.
 */
function writeSidecar(folder: string, s: SkillRecord): void {
  const path = join(folder, SIDECAR);
  if (s.groups === undefined) rmSync(path, { force: true });
  else writeFileSync(path, toYaml({ groups: s.groups }));
}

/** Writes every published skill under `<dir>/skills/<name>/`, each file exactly as published. */
export async function pullSkills(api: AdminClient, dir: string, out: (s: string) => void): Promise<number> {
  const skills = await api.listSkills();
  for (const s of skills) {
    for (const f of s.files) {
      const path = join(dir, 'skills', s.name, f.path);
      mkdirSync(dirname(path), { recursive: true });
      const bytes = await api.fetchFile(f.digest);
      // What is written must be what was published: the digest is checked, not trusted.
      if ((await digestOf(bytes)) !== f.digest) throw new CliError(`${s.name}/${f.path}: the gateway sent other bytes`);
      writeFileSync(path, bytes);
    }
    writeSidecar(join(dir, 'skills', s.name), s);
    out(`  skill ${s.name} (version ${s._version}) → ${dir}/skills/${s.name}/ (${s.files.length} file(s))`);
  }
  return skills.length;
}
