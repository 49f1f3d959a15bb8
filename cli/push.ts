/**
 * Publishing a prompt directory to a running gateway (Node side): what
 * `npm start` and the end-to-end tests do, through the same admin client as
 * the CLI.
 */
import { AdminClient } from './api.js';
import { loadValidDir } from './fs-source.js';

export interface PushResult {
  generation: number;
  prompts: number;
}

/** Loads and validates locally (errors name file and line), then publishes the directory as the whole catalog. */
export async function pushDir(baseUrl: string, token: string, dir: string): Promise<PushResult> {
  const { records } = loadValidDir(dir);
  const r = await new AdminClient(baseUrl, token).publish(records, { prune: true });
  return { generation: r.generation, prompts: records.length };
}
