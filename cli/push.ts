/**
 * Publishing a prompt directory to a running gateway (Node side), in the one order every push
 * takes: `promptgate push` (prompt-commands.ts), `npm start` and the end-to-end tests alike.
 */
import type { PromptRecord } from '../src/catalog/types.js';
import { AdminClient, CliError, type PublishOptions, type PublishResult, type StagedSet } from './api.js';
import { loadValidDir } from './fs-source.js';
import { loadValidSkills, uploadMissing } from './skill-commands.js';
import type { SkillFiles } from './skills.js';

export interface PushResult {
  generation: number;
  prompts: number;
  skills: number;
}

export interface DirectoryPush {
  /** Skill files uploaded (none on a dry run). */
  uploaded: number;
  /** The prompt set's plan: a dry run against the catalog as it stood before any skill was published. */
  plan: PublishResult;
  /** The skills' publish (or its dry run). */
  skills: PublishResult;
  /** The prompts' publish; undefined on a dry run, or when the plan changes nothing. */
  published?: PublishResult;
}

const changes = (r: PublishResult) => r.diff.added.length + r.diff.changed.length + r.diff.removed.length;

/**
 * The prompts' publish, after the skills': refused then, the error says what was published. A 5xx or
 * no answer may come after the writer recorded the prompts (docs/publishing.md), so it says "may".
 */
async function publishPrompts(set: StagedSet, prune: boolean | undefined, skills: PublishResult) {
  try {
    return await set.publish({ prune });
  } catch (e) {
    if (!(e instanceof CliError) || !changes(skills)) throw e;
    const prompts = e.mayHaveApplied
      ? 'the prompts may have been recorded all the same: `promptgate diff` shows what is published, and a push again records nothing twice'
      : 'the prompts were not: push again once the cause is fixed';
    throw new CliError(
      `${e.message}\nThe skills were published (generation ${skills.generation}: ${changes(skills)} change(s)); ${prompts}`,
      e.mayHaveApplied,
    );
  }
}

/**
 * Skill files, the prompt set's plan, the skill records, then the prompts. `onPlanned` hears of the
 * plan and the skills' publish (or its dry run) before the prompts are published.
 */
export async function publishDirectory(
  api: AdminClient,
  records: PromptRecord[],
  skills: SkillFiles,
  opts: PublishOptions,
  onPlanned: (done: Omit<DirectoryPush, 'published'>) => void = () => {},
): Promise<DirectoryPush> {
  // Skill files first, before a prompt upload is opened: stored by digest, they change nothing on
  // their own, but go one request each (minutes, when the rate limit is reached), and an upload
  // expires an hour after it is opened; then its hour covers only staging and publishing.
  const uploaded = opts.dryRun ? 0 : await uploadMissing(api, skills);
  // Staged and planned next (a set too large for one request is uploaded once, for the plan and
  // the publish): a set the gateway refuses, or cannot hold, stops the push before any skill
  // record is published, whether it went in parts or in one request. The plan cannot see what the
  // skills' publish then adds, nor another admin's write (docs/publishing.md#large-catalogs).
  const set = await api.stage(records);
  try {
    const plan = await set.publish({ dryRun: true, prune: opts.prune });
    const skillResult = await api.publishSkills(skills.records, opts);
    const done = { uploaded, plan, skills: skillResult };
    onPlanned(done);
    if (opts.dryRun || !changes(plan)) return done;
    return { ...done, published: await publishPrompts(set, opts.prune, skillResult) };
  } finally {
    // Whatever happened: an upload not published is forgotten (one a publish used up is already gone).
    await set.discard();
  }
}

/** Loads and validates locally (errors name file and line), then publishes the directory as the whole catalog. */
export async function pushDir(baseUrl: string, token: string, dir: string): Promise<PushResult> {
  const { records } = loadValidDir(dir);
  const skills = loadValidSkills(dir);
  const r = await publishDirectory(new AdminClient(baseUrl, token), records, skills, { prune: true });
  return {
    generation: Math.max((r.published ?? r.plan).generation, r.skills.generation),
    prompts: records.length,
    skills: skills.records.length,
  };
}
