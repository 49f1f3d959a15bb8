/**
 * Runs the `promptgate` CLI (bin/promptgate.mjs) as a user would, against a running gateway
 * with its admin token, for the e2e suites of the CLI.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT, type Gateway } from './wrangler-dev.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(gw: Gateway, ...args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      'node',
      [join(PROJECT_ROOT, 'bin/promptgate.mjs'), ...args],
      { env: { ...process.env, PROMPTGATE_URL: gw.url, PROMPTGATE_TOKEN: gw.adminToken } },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
