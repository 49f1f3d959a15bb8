/**
 * Publishing a prompt directory to a running gateway (Node side): what
 * `npm start` and the end-to-end tests do, through the same admin client as
 * the CLI.
 */
import { AdminClient } from './api.js';
import { loadValidDir } from './fs-source.js';
import { loadValidSkills, pushSkills } from './skill-commands.js';

export interface PushResult {
  generation: number;
  prompts: number;
  skills: number;
}

/**
 * Loads and validates locally (errors name file and line), then publishes the directory as the
 * whole catalog: its skills (files uploaded first), then its prompts.
 */
export async function pushDir(baseUrl: string, token: string, dir: string): Promise<PushResult> {
  const { records } = loadValidDir(dir);
  const skills = loadValidSkills(dir);
  const api = new AdminClient(baseUrl, token);
  const s = await pushSkills(api, skills, { prune: true });
  const r = await api.publish(records, { prune: true });
  return {
    generation: Math.max(r.generation, s.result.generation),
    prompts: records.length,
    skills: skills.records.length,
  };
}
