/**
 * The two Worker bundles the harnesses run: the gateway exactly as `wrangler deploy --dry-run`
 * writes it (with its raw and gzip sizes), and the ceiling Worker bundled with the esbuild
 * that wrangler ships (no extra dependency).
 */
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { BENCH_DIR } from './paths.mjs';

export async function buildGateway(h, tmp) {
  const outdir = join(tmp, 'gateway');
  const t0 = performance.now();
  const { stdout } = await h.exec('npx', ['wrangler', 'deploy', '--dry-run', '--outdir', outdir], {
    timeoutMs: 180_000,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  const buildMs = performance.now() - t0;
  const scriptPath = join(outdir, 'index.js');
  const raw = readFileSync(scriptPath);
  const wranglerLine = /Total Upload:.*$/m.exec(stdout)?.[0]?.trim();
  return {
    scriptPath,
    buildMs,
    rawBytes: raw.length,
    gzipBytes: gzipSync(raw).length,
    wranglerReports: wranglerLine ?? null,
  };
}

export async function buildCeiling(tmp) {
  const esbuild = createRequire(createRequire(import.meta.url).resolve('wrangler/package.json'))('esbuild');
  const outfile = join(tmp, 'ceiling', 'ceiling.js');
  await esbuild.build({
    entryPoints: [join(BENCH_DIR, 'targets', 'ceiling.mjs')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'browser'],
    logLevel: 'warning',
  });
  return { scriptPath: outfile, rawBytes: statSync(outfile).size };
}
