/**
 * Seeds a gateway's local KV, before `wrangler dev` starts, with a folder's prompt files and skill folders
 * (each a folder with a SKILL.md) as one catalog snapshot, and every file's bytes by digest: the layout
 * publishing writes (docs/storage-schema.md), for e2e tests of serving skills (Node only). Through
 * `wrangler kv … --local`, so the bytes land exactly where the Worker reads them.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { isPromptFile, loadPromptFiles } from '../../cli/files.js';
import type { CatalogSnapshot, SkillRecord } from '../../src/catalog/types.js';
import { PROJECT_ROOT } from './wrangler-dev.js';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const isUtf8 = (b: Uint8Array) => {
  try {
    utf8.decode(b);
    return true;
  } catch {
    return false;
  }
};

function kv(persistDir: string, args: string[]): void {
  execFileSync('npx', ['wrangler', 'kv', ...args, '--binding', 'PROMPTS', '--local', '--persist-to', persistDir], {
    cwd: PROJECT_ROOT,
    stdio: 'pipe',
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_UPDATE_NOTIFIER: '1' },
  });
}

/** The snapshot the folder stands for; `put` receives each skill file's KV key and path. */
export function skillSnapshot(dir: string, put: (key: string, path: string, bytes: Uint8Array) => void) {
  const top = readdirSync(dir, { withFileTypes: true });
  const files = new Map<string, string>();
  for (const e of top)
    if (e.isFile() && isPromptFile(e.name)) files.set(e.name, readFileSync(join(dir, e.name), 'utf8'));
  const { records, issues } = loadPromptFiles({
    files,
    readAsset: (p) => (existsSync(join(dir, p)) ? new Uint8Array(readFileSync(join(dir, p))) : undefined),
  });
  if (issues.length) throw new Error(`prompt files in ${dir}: ${JSON.stringify(issues)}`);
  const skills: SkillRecord[] = [];
  for (const e of top.filter((t) => t.isDirectory() && existsSync(join(dir, t.name, 'SKILL.md'))).sort()) {
    const root = join(dir, e.name);
    const skillFiles = filesUnder(root)
      .map((p) => {
        const bytes = new Uint8Array(readFileSync(p));
        const hex = createHash('sha256').update(bytes).digest('hex');
        put(`skills/files/${hex}`, p, bytes);
        return { path: relative(root, p).split('\\').join('/'), digest: `sha256:${hex}`, size: bytes.byteLength };
      })
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const text = readFileSync(join(root, 'SKILL.md'), 'utf8');
    const frontmatter = parse(/^---\r?\n([\s\S]*?)\r?\n---/.exec(text)![1]!) as Record<string, unknown>;
    skills.push({ name: e.name, frontmatter, files: skillFiles });
  }
  const snap: CatalogSnapshot = {
    generation: Date.now(),
    updatedAt: new Date().toISOString(),
    prompts: records,
    skills,
  };
  return snap;
}

/** `seed` for startGateway: the folder's prompts and skills, served from the first request (publish nothing else). */
export function seedFolder(dir: string): (persistDir: string) => void {
  return (persistDir) => {
    const bulk: { key: string; value: string }[] = [];
    const binary: { key: string; path: string }[] = [];
    const snap = skillSnapshot(dir, (key, path, bytes) =>
      isUtf8(bytes) ? bulk.push({ key, value: utf8.decode(bytes) }) : binary.push({ key, path }),
    );
    const json = JSON.stringify(snap);
    bulk.push(
      { key: `catalog/snapshots/${snap.generation}`, value: json },
      { key: 'catalog/head', value: json },
      { key: 'catalog/generation', value: String(snap.generation) },
    );
    const tmp = mkdtempSync(join(tmpdir(), 'promptgate-seed-'));
    try {
      writeFileSync(join(tmp, 'bulk.json'), JSON.stringify(bulk));
      kv(persistDir, ['bulk', 'put', join(tmp, 'bulk.json')]);
      // Bulk values are text: binary files go one by one, from their own bytes.
      for (const b of binary) kv(persistDir, ['key', 'put', b.key, '--path', b.path]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  };
}
