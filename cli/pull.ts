/**
 * `promptgate pull <dir> [--replace]`: the published prompts and skills written back as files,
 * each skill file byte for byte. Where they may be written, and what an earlier pull left that is
 * no longer published, is pull-target.ts's.
 */
import { stringify as toYaml } from 'yaml';
import { validateSkill, SKILL_NAME } from '../src/catalog/skills/validate.js';
import type { SkillRecord } from '../src/catalog/types.js';
import { NAME_PATTERN } from '../src/catalog/validate.js';
import { CliError, type AdminClient } from './api.js';
import { PullTarget, type Planned } from './pull-target.js';
import { fileStems, serializePrompt } from './serialize.js';
import { sha256 } from './skills.js';
import { SIDECAR, sidecarOf } from './skill-texts.js';

type Out = (s: string) => void;
type Listed<R> = R & { _version: number; _updatedAt: string };

/**
 * Where a skill goes and what its folder holds besides its files: the `.promptgate.yaml` push reads
 * the groups and media types from (skills.ts), without which a pulled skill pushed back would be shown
 * to everyone, or its files served as another type. None when the skill needs none (and one an earlier
 * pull wrote is removed as no longer published).
 */
function skillPlan(s: SkillRecord): { folder: string; sidecar: Uint8Array | undefined } {
  const settings = sidecarOf(s);
  const sidecar = settings && new TextEncoder().encode(toYaml(settings));
  return { folder: `skills/${s.name}`, sidecar };
}

/** What a skill's folder will hold, by path and digest: the files as published, and its sidecar. */
function plannedSkill(s: SkillRecord): Planned[] {
  const { folder, sidecar } = skillPlan(s);
  return [
    ...s.files.map((f) => ({ path: `${folder}/${f.path}`, digest: f.digest })),
    ...(sidecar ? [{ path: `${folder}/${SIDECAR}`, digest: sha256(sidecar) }] : []),
  ];
}

/** Every published skill under `<dir>/skills/<name>/`, each file exactly as published. */
async function pullSkills(api: AdminClient, skills: Listed<SkillRecord>[], target: PullTarget, out: Out) {
  for (const s of skills) {
    const { folder, sidecar } = skillPlan(s);
    for (const f of s.files) {
      const bytes = await api.fetchFile(f.digest);
      // What is written must be what was published: the digest is checked, not trusted.
      if (sha256(bytes) !== f.digest) throw new CliError(`${s.name}/${f.path}: the gateway sent other bytes`);
      target.write(`${folder}/${f.path}`, bytes);
    }
    if (sidecar) target.write(`${folder}/${SIDECAR}`, sidecar);
    out(`  skill ${s.name} (version ${s._version}) → ${target.dir}/${folder}/ (${s.files.length} file(s))`);
  }
}

/**
 * Refuses a listing with a name or file path the gateway itself would not take: each becomes a
 * path under the directory, and one such as `../x` (from a wrong or hostile server) would write
 * outside it. Checked before anything is written.
 */
function checkNames(prompts: { name: unknown }[], skills: { name: unknown; files: unknown }[]): void {
  const refuse = (what: string, why: string) =>
    new CliError(`the gateway listed ${what}, ${why}; nothing was written (is --url the gateway?)`);
  for (const { name } of prompts)
    if (typeof name !== 'string' || !NAME_PATTERN.test(name))
      throw refuse(`a prompt named ${JSON.stringify(name)}`, 'which is not a prompt name');
  for (const { name, files } of skills) {
    if (typeof name !== 'string' || !SKILL_NAME.test(name))
      throw refuse(`a skill named ${JSON.stringify(name)}`, 'which is not a skill name');
    if (!Array.isArray(files)) throw refuse(`skill ${name}`, 'whose files are not a list');
    // The gateway's own path rule, asked of one file at a time: its list of a record's issues is capped.
    for (const f of files as unknown[]) {
      const bad = validateSkill({ files: [f] }).find((i) => i.path === 'files[0].path' || i.path === 'files[0]');
      const path = JSON.stringify((f as { path?: unknown } | null)?.path);
      if (bad) throw refuse(`a file ${path} in skill ${name}`, `whose path ${bad.message}`);
    }
  }
}

export async function pullCommand(
  client: () => AdminClient,
  dir: string,
  opts: { replace?: boolean },
  out: Out,
): Promise<void> {
  const api = client();
  // Checked before the gateway is asked anything: a directory pull may not write into stops it at once.
  const target = PullTarget.open(dir, opts.replace);
  const prompts = await api.list();
  const skills = await api.listSkills();
  checkNames(prompts, skills);
  const stems = fileStems(prompts.map((p) => p.name));
  const files = prompts.map(({ _version: _v, _updatedAt: _u, ...record }) => {
    const file = serializePrompt(record, stems.get(record.name));
    return { file, all: [{ path: file.path, bytes: new TextEncoder().encode(file.text) }, ...file.assets] };
  });
  const planned: Planned[] = [
    ...files.flatMap((f) => f.all.map((a) => ({ path: a.path, digest: sha256(a.bytes) }))),
    ...skills.flatMap(plannedSkill),
  ];
  target.begin(planned);
  files.forEach(({ file, all }, i) => {
    for (const a of all) target.write(a.path, a.bytes);
    out(`  ${prompts[i]!.name} (version ${prompts[i]!._version}) → ${dir}/${file.path}`);
  });
  await pullSkills(api, skills, target, out);
  const removed = target.finish();
  for (const p of removed) out(`  - ${dir}/${p} (no longer published)`);
  out(
    `pulled ${prompts.length} prompt(s) and ${skills.length} skill(s)${removed.length ? `; removed ${removed.length} file(s) an earlier pull wrote` : ''}`,
  );
}
