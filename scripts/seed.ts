/**
 * `npm run seed`: loads ./prompts through the project's one loader and
 * writes them as a new catalog generation into the *local* KV that
 * `wrangler dev` uses (or, with `--remote`, the deployed one). Invalid files
 * stop the seed with every problem listed.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { snapshotEntries } from '../src/catalog/store.js';
import { loadPromptDir } from '../src/cli/fs-source.js';

const dir = process.argv[2] ?? 'prompts';
const { records, issues } = loadPromptDir(dir);
if (issues.length) {
  for (const i of issues) console.error(`${dir}/${i.path}: ${i.message}`);
  process.exit(1);
}
const snapshot = { generation: Date.now(), updatedAt: new Date().toISOString(), prompts: records };
const tmp = mkdtempSync(join(tmpdir(), 'promptgate-seed-'));
const file = join(tmp, 'entries.json');
writeFileSync(file, JSON.stringify(snapshotEntries(snapshot)));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
// Extra arguments go to `wrangler kv bulk put`: `--persist-to <dir>` for a custom local state
// directory, or `--remote` to publish to the deployed namespace.
const extra = process.argv.slice(3);
const target = extra.includes('--remote') ? [] : ['--local'];
execFileSync('npx', ['wrangler', 'kv', 'bulk', 'put', file, '--binding', 'PROMPTS', ...target, ...extra], {
  stdio: ['ignore', 'ignore', 'inherit'],
});
console.log(`seeded ${records.length} prompts from ${dir}/ as generation ${snapshot.generation}`);
