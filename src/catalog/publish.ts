/**
 * Publishing a catalog: the write to KV and the change event, always
 * together. Every writer goes through here (the admin API, tests), so no
 * change reaches KV without reaching connected clients.
 */
import { publishChange } from '../session/feed.js';
import { readGeneration, writeSnapshot } from './store.js';
import type { CatalogSnapshot, PromptRecord } from './types.js';

export async function publishSnapshot(env: Env, snap: CatalogSnapshot): Promise<void> {
  await writeSnapshot(env.PROMPTS, snap);
  await publishChange(env, { kind: 'prompts_list_changed', generation: snap.generation });
}

/**
 * Publishes `prompts` as the next generation. Generations are milliseconds
 * since the epoch, bumped past the current one, so they stay monotonic
 * across writers and restarts.
 */
export async function publishPrompts(env: Env, prompts: PromptRecord[]): Promise<CatalogSnapshot> {
  const snap: CatalogSnapshot = {
    generation: Math.max(Date.now(), (await readGeneration(env.PROMPTS)) + 1),
    updatedAt: new Date().toISOString(),
    prompts,
  };
  await publishSnapshot(env, snap);
  return snap;
}
