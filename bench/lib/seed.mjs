/**
 * Seeds a gateway's KV the way `writeSnapshot` stores a catalog: the KV entries of the
 * gateway's own `snapshotEntries` for the 20 bench prompts (generation 1). Imports the
 * Worker's TypeScript, so the harnesses that seed run under `node --import tsx`.
 */
import { snapshotEntries } from '../../src/catalog/snapshot-write.ts';
import { snapshot } from './prompts.mjs';

export async function seedCatalog(mf) {
  const kv = await mf.getKVNamespace('PROMPTS');
  for (const { key, value } of snapshotEntries(snapshot())) await kv.put(key, value);
}
