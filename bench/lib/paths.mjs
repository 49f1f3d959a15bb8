/**
 * Where the bench lives and writes: its own folder, the repository root (wrangler.toml,
 * node_modules) and the gitignored output folder; and the installed version of a package,
 * which every report prints beside its figures.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT = resolve(BENCH_DIR, '..');
export const OUT_DIR = join(BENCH_DIR, 'out');

export const pkgVersion = (name) =>
  JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
