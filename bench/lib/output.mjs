/**
 * What every harness records beside its figures (Node, machine, load average, package
 * versions), and writing its JSON to bench/out/ (gitignored).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { OUT_DIR, pkgVersion } from './paths.mjs';

/** `platform` is left out where a harness never recorded it. */
export function environment(loadavgAtStart, packages, { platform = true } = {}) {
  return {
    node: process.version,
    ...(platform ? { platform: `${os.platform()} ${os.release()}` } : {}),
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model?.trim(),
    loadavgAtStart,
    loadavgAtEnd: os.loadavg(),
    versions: Object.fromEntries(packages.map((n) => [n, pkgVersion(n)])),
  };
}

/** Writes bench/out/<file>; returns its path. */
export function writeOut(file, json, replacer) {
  mkdirSync(OUT_DIR, { recursive: true });
  const path = join(OUT_DIR, file);
  writeFileSync(path, `${JSON.stringify(json, replacer, 2)}\n`);
  return path;
}
