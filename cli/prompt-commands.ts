/**
 * `promptgate validate|push|diff <dir>`: a prompt directory (its prompts
 * and its skill folders) against a gateway's admin API. Validate, push and
 * diff load and check everything locally first, so nothing is published from
 * a directory with a bad file; pull (pull.ts) writes what is published back as files.
 */
import { canonical } from '../src/catalog/diff.js';
import type { AdminClient, PublishResult } from './api.js';
import { loadValidDir } from './fs-source.js';
import { publishDirectory, type DirectoryPush } from './push.js';
import { loadValidSkills } from './skill-commands.js';

type Out = (s: string) => void;

/** The directory's prompts and skills, each set checked; throws one error naming every bad file. */
function loadDirectory(dir: string) {
  return { ...loadValidDir(dir), skills: loadValidSkills(dir) };
}

export function validateCommand(dir: string, out: Out): void {
  const { records, skills } = loadDirectory(dir);
  out(`${records.length} prompt(s) and ${skills.records.length} skill(s) in ${dir}/ are valid`);
}

/** Paths where two JSON values differ ("messages[0].content.text"). */
export function changedPaths(a: unknown, b: unknown, path = ''): string[] {
  if (canonical(a) === canonical(b)) return [];
  const isObj = (v: unknown) => typeof v === 'object' && v !== null;
  if (!isObj(a) || !isObj(b) || Array.isArray(a) !== Array.isArray(b)) return [path || '(whole record)'];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].flatMap((k) => {
    const sub = Array.isArray(a) ? `${path}[${k}]` : path ? `${path}.${k}` : k;
    return changedPaths((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], sub);
  });
}

function printDiff(out: Out, r: PublishResult, sources: Map<string, string>, dir: string): void {
  const where = (n: string) => (sources.has(n) ? `${dir}/${sources.get(n)}` : '(not in directory)');
  for (const n of r.diff.added) out(`  + ${n}  ${where(n)}`);
  for (const n of r.diff.changed) out(`  ~ ${n}  ${where(n)}`);
  for (const n of r.diff.removed) out(`  - ${n}`);
}

/** `client` is asked for only after the directory validated: a bad file is reported before a missing token. */
export async function pushCommand(
  client: () => AdminClient,
  dir: string,
  opts: { dryRun?: boolean; prune?: boolean },
  out: Out,
): Promise<void> {
  const { records, sources, skills } = loadDirectory(dir);
  const dry = opts.dryRun ? ' (dry run)' : '';
  const planned = ({ skills: r, uploaded, plan }: Omit<DirectoryPush, 'published'>) => {
    printDiff(out, r, skills.sources, dir);
    const s = r.diff;
    out(
      `skills${dry}: ${s.added.length} added, ${s.changed.length} changed, ${s.removed.length} deleted, ${s.unchanged.length} unchanged; ${uploaded} file(s) uploaded`,
    );
    printDiff(out, plan, sources, dir);
  };
  const { plan, published: done } = await publishDirectory(client(), records, skills, opts, planned);
  const { added, changed, removed, unchanged } = plan.diff;
  if (opts.dryRun)
    return out(
      `dry run: ${added.length} to add, ${changed.length} to change, ${removed.length} to delete, ${unchanged.length} unchanged`,
    );
  if (!done) return out(`nothing to publish: ${unchanged.length} prompt(s) unchanged`);
  for (const [name, v] of Object.entries(done.versions))
    out(`  ✓ ${name} → version ${v}${sources.has(name) ? `  (${dir}/${sources.get(name)})` : ' (deleted)'}`);
  const d = done.diff;
  out(
    `published generation ${done.generation}: ${d.added.length} added, ${d.changed.length} changed, ${d.removed.length} deleted, ${d.unchanged.length} unchanged`,
  );
}

/**
 * What `push --prune` would change, prompts and skills, with the fields of each changed record;
 * whether nothing would (for `diff --exit-code`).
 */
export async function diffCommand(client: () => AdminClient, dir: string, out: Out): Promise<boolean> {
  const { records, sources, skills } = loadDirectory(dir);
  const api = client();
  const plans = [
    {
      plan: await api.publish(records, { dryRun: true, prune: true }),
      sources,
      local: records,
      remote: await api.list(),
    },
    {
      plan: await api.publishSkills(skills.records, { dryRun: true, prune: true }),
      sources: skills.sources,
      local: skills.records,
      remote: await api.listSkills(),
    },
  ];
  let same = true;
  for (const p of plans) {
    const remote = new Map(p.remote.map(({ _version: _v, _updatedAt: _u, ...r }) => [r.name, r]));
    const local = new Map(p.local.map((r) => [r.name, r]));
    printDiff(out, p.plan, p.sources, dir);
    for (const n of p.plan.diff.changed) out(`    ${n}: ${changedPaths(remote.get(n), local.get(n)).join(', ')}`);
    same &&= !p.plan.diff.added.length && !p.plan.diff.changed.length && !p.plan.diff.removed.length;
  }
  if (same) out('no differences');
  return same;
}
