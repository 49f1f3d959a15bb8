/**
 * Runs an official MCP conformance suite (`@modelcontextprotocol/conformance`
 * CLI) against a server URL and reads back what every scenario checked.
 *
 * Two builds are installed side by side: 0.1.x (`current`, the 2025-11-25
 * scenarios) and 0.2.0-alpha (`next`, npm alias `conformance-next`, adding
 * 2026-07-28). Both need Node 22's `fs.globSync`; globsync-preload.mjs
 * provides it on Node 20. The CLI applies the expected-failures baseline
 * itself and exits non-zero on any failure not in it, or on any baseline
 * entry that passes. Results go to a temp dir, never the repository.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { PROJECT_ROOT } from '../helpers/wrangler-dev.js';

export type Build = 'current' | 'next';

const ENTRY: Record<Build, string> = {
  current: 'node_modules/@modelcontextprotocol/conformance/dist/index.js',
  next: 'node_modules/conformance-next/dist/index.js',
};
const PRELOAD = join(PROJECT_ROOT, 'test/conformance/globsync-preload.mjs');
const RUN_TIMEOUT_MS = 150_000;

export interface Check {
  id: string;
  /** SUCCESS, FAILURE, WARNING, INFO or SKIPPED (or whatever a newer suite reports). */
  status: string;
  errorMessage?: string;
}

export interface SuiteRun {
  command: string;
  exitCode: number | null;
  output: string;
  /** Scenario name → its checks. */
  scenarios: Map<string, Check[]>;
  /** The merged baseline this run was held to (`scenario` or `scenario:check-id`). */
  expected: string[];
}

export interface SuiteOptions {
  build: Build;
  url: string;
  specVersion?: string;
  /** Baseline YAML files (under test/conformance/), merged. */
  baselines: string[];
  /** Baseline entries that must pass in this run (dropped from the merged baseline). */
  mustPass?: string[];
  /** One scenario instead of the whole suite. */
  scenario?: string;
}

function mergedBaseline(files: string[], mustPass: string[]): string[] {
  const entries = files.flatMap(
    (f) => (parse(readFileSync(join(PROJECT_ROOT, 'test/conformance', f), 'utf8')) as { server: string[] }).server,
  );
  return entries.filter((e) => !mustPass.includes(e));
}

export async function runSuite(opts: SuiteOptions): Promise<SuiteRun> {
  const dir = mkdtempSync(join(tmpdir(), 'promptgate-conformance-'));
  try {
    const out = join(dir, 'results');
    const args = [join(PROJECT_ROOT, ENTRY[opts.build]), 'server', '--url', opts.url];
    args.push(...(opts.scenario ? ['--scenario', opts.scenario] : ['--suite', 'all']));
    if (opts.specVersion) args.push('--spec-version', opts.specVersion);
    const expected = mergedBaseline(opts.baselines, opts.mustPass ?? []);
    writeFileSync(join(dir, 'expected-failures.yaml'), stringify({ server: expected }));
    args.push('--expected-failures', join(dir, 'expected-failures.yaml'), '-o', out);
    const child = spawn(process.execPath, ['--import', PRELOAD, ...args], {
      cwd: dir,
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    const exitCode = await new Promise<number | null>((r) => child.once('close', (code) => r(code)));
    clearTimeout(timer);
    const scenarios = new Map<string, Check[]>();
    if (!existsSync(out))
      throw new Error(`the conformance CLI wrote no results (exit ${exitCode}):\n${output.slice(-4000)}`);
    for (const entry of readdirSync(out)) {
      const name = entry.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
      scenarios.set(name, JSON.parse(readFileSync(join(out, entry, 'checks.json'), 'utf8')) as Check[]);
    }
    const command = `node --import ./test/conformance/globsync-preload.mjs ${ENTRY[opts.build]} server --url <gateway>/mcp ${opts.scenario ? `--scenario ${opts.scenario}` : '--suite all'}${opts.specVersion ? ` --spec-version ${opts.specVersion}` : ''} --expected-failures <baseline>`;
    return { command, exitCode, output, scenarios, expected };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Checks by outcome (WARNING counts as a failure, as the CLI's baseline check does). */
export function counts(checks: Check[]): { passed: number; failed: number } {
  return {
    passed: checks.filter((c) => c.status === 'SUCCESS').length,
    failed: checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING').length,
  };
}
