/**
 * End-to-end: the README's first command. `npm start` serves the example prompts of prompts/ at
 * /mcp (read here with the official SDK v1 client), and a SIGTERM sent to the npm process alone,
 * as an editor's stop button or a process manager sends it, stops everything it started: the
 * port is free again and no process of the group is left.
 *
 * npm hands that signal to the `sh -c` it runs the script in, and only to it, so without
 * scripts/dev.ts noticing its lost parent the runtime would keep the port.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPromptDir } from '../../cli/fs-source.js';
import { freePort, PROJECT_ROOT } from '../helpers/wrangler-dev.js';

const READY_MS = 90_000;
const STOP_MS = 20_000;
const EXPECTED = loadPromptDir(join(PROJECT_ROOT, 'prompts'))
  .records.map((r) => r.name)
  .sort();

let npm: ChildProcess;
let port: number;
let output = '';
const persistDir = mkdtempSync(join(tmpdir(), 'promptgate-npm-start-'));

/** True while any process of the group npm leads is alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** True when something accepts connections on the port. */
function listening(p: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(p, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function waitFor(what: string, ms: number, ok: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`${what} within ${ms} ms; npm start printed:\n${output.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  port = await freePort();
  // Its own process group, so the test can tell whether anything of it is left, and clean up if so.
  npm = spawn('npm', ['start', '--', '--persist-to', persistDir], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PORT: String(port) },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (b: Buffer) => (output = (output + b.toString()).slice(-20_000));
  npm.stdout!.on('data', keep);
  npm.stderr!.on('data', keep);
  await waitFor('npm start published prompts/', READY_MS, () => output.includes('[promptgate] start: published'));
}, READY_MS + 10_000);

afterAll(() => {
  if (npm?.pid && groupAlive(npm.pid)) process.kill(-npm.pid, 'SIGKILL');
  rmSync(persistDir, { recursive: true, force: true });
});

describe('npm start', () => {
  it('serves the example prompts at /mcp', async () => {
    const client = new Client({ name: 'npm-start-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    try {
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name).sort()).toEqual(EXPECTED);
    } finally {
      await client.close();
    }
  });

  it(
    'stops everything it started when npm alone gets SIGTERM',
    async () => {
      expect(await listening(port)).toBe(true);
      npm.kill('SIGTERM');
      await waitFor('the port was freed', STOP_MS, async () => !(await listening(port)));
      await waitFor('every process of the group ended', STOP_MS, () => !groupAlive(npm.pid!));
    },
    2 * STOP_MS + 5_000,
  );
});
