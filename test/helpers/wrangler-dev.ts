/**
 * Starts the gateway under a real `wrangler dev` for end-to-end tests (Node only).
 *
 *   const gw = await startGateway({ pageSize: 2 });
 *   ... talk to gw.mcpUrl over HTTP ...
 *   await gw.stop();
 *
 * Every gateway gets a free port on 127.0.0.1 and a fresh temp persist dir,
 * so runs never share KV or Durable Object state with each other or with
 * `npm start`. Prompts are published through the admin API, the same path
 * as `npm start` and a deployment. wrangler runs in its own process group
 * (`detached`), and `stop()` signals the whole group: npm exec, wrangler,
 * esbuild and both workerd processes. A process 'exit' hook (and SIGINT /
 * SIGTERM / SIGHUP, when nothing else handles them) kills whatever a crashed
 * or interrupted run left running.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pushDir, type PushResult } from '../../cli/push.js';

export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface GatewayOptions {
  /** Prompt directory to publish at start (default: the project's `prompts/`). */
  promptsDir?: string;
  /** `PAGE_SIZE` var (default 50, the wrangler.toml value). */
  pageSize?: number;
  /** Extra `--var NAME:VALUE` overrides (values may contain ':'). */
  vars?: Record<string, string | number>;
  /** How long to wait for `wrangler dev` to answer (default 60 s). */
  readyTimeoutMs?: number;
  /**
   * Where readiness is asked (default `/`, the catalog page, which lists never-listed upstreams);
   * `/status` lists none, for a test that needs its upstreams still cold.
   */
  readyPath?: '/' | '/status';
  /**
   * Run the plain `wrangler dev` CLI, DevTools inspector included, instead of
   * scripts/wrangler-dev.ts (what `npm start` runs: the same local runtime
   * without the inspector, see there why). Default false.
   */
  devtools?: boolean;
}

export interface Gateway {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  /** The MCP endpoint, `${url}/mcp`. */
  readonly mcpUrl: string;
  /** The persist dir (KV + Durable Objects), inside a temp dir that stop() removes. */
  readonly persistDir: string;
  /** The admin token this gateway was started with. */
  readonly adminToken: string;
  /** The process group of wrangler and its workerd processes (for resource checks such as open file descriptors). */
  readonly pgid: number;
  /** Publishes a prompt directory through the admin API. */
  publish(dir: string): Promise<PushResult>;
  /** Everything wrangler printed so far (tail), for diagnostics. */
  output(): string;
  /** Kills the whole wrangler process group and removes the persist dir. Idempotent. */
  stop(): Promise<void>;
}

const DEFAULT_READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;
const MAX_OUTPUT_CHARS = 64 * 1024;
const START_ATTEMPTS = 3;

/** Quiet, offline-friendly environment for wrangler and npx. */
function childEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    WRANGLER_SEND_METRICS: 'false',
    NO_UPDATE_NOTIFIER: '1',
    npm_config_update_notifier: 'false',
    FORCE_COLOR: '0',
  };
}

// ---------------------------------------------------------------------------
// Leftover protection: every live process group and temp dir is tracked here.

interface Live {
  pgid: number;
  dir: string;
}

const live = new Set<Live>();
let hooksInstalled = false;

function killGroup(pgid: number, signal: NodeJS.Signals): boolean {
  if (!(pgid > 1)) return false; // never process.kill(-0): that is our own group
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: the group is gone
  }
}

function groupAlive(pgid: number): boolean {
  if (!(pgid > 1)) return false;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function removeDir(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
  } catch {
    // best effort: a temp dir is not worth failing a run over
  }
}

function killAllSync(): void {
  for (const l of live) {
    killGroup(l.pgid, 'SIGKILL');
    removeDir(l.dir);
  }
  live.clear();
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', killAllSync);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      killAllSync();
      // Only restore the default "die by signal" when nobody else handles it.
      if (process.listenerCount(sig) === 1) {
        process.off(sig, onSignal);
        process.kill(process.pid, sig);
      }
    };
    process.on(sig, onSignal);
  }
}

// ---------------------------------------------------------------------------

/** A port the OS considers free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port ? resolve(port) : reject(new Error('could not allocate a port'))));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for `p` at most `ms`, without leaving a timer behind when `p` wins. */
async function within(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([p, new Promise((r) => (timer = setTimeout(r, ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

class StartError extends Error {
  constructor(
    message: string,
    readonly portTaken: boolean,
  ) {
    super(message);
  }
}

interface Running {
  child: ChildProcess;
  pgid: number;
  output: () => string;
  exited: Promise<void>;
  hasExited: () => boolean;
}

function spawnWrangler(port: number, persistDir: string, vars: Record<string, string>, devtools: boolean): Running {
  const args = [
    ...(devtools ? ['wrangler', 'dev'] : ['tsx', 'scripts/wrangler-dev.ts']),
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--persist-to',
    persistDir,
  ];
  for (const [k, v] of Object.entries(vars)) args.push('--var', `${k}:${v}`);
  const child = spawn('npx', args, {
    cwd: PROJECT_ROOT,
    env: childEnv(),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error('failed to spawn `npx wrangler dev`');
  const pgid = child.pid;

  let out = '';
  const append = (chunk: Buffer) => {
    out += chunk.toString('utf8');
    if (out.length > MAX_OUTPUT_CHARS) out = out.slice(-MAX_OUTPUT_CHARS);
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);

  let done = false;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      done = true;
      resolve();
    });
    child.once('error', (e) => {
      out += `\n[spawn error] ${String(e)}`;
      done = true;
      resolve();
    });
  });
  return { child, pgid, output: () => out, exited, hasExited: () => done };
}

/** Lines wrangler prints that say nothing about our Worker (no internet in CI). */
function tidy(output: string): string {
  return output
    .split('\n')
    .filter(
      (l) =>
        !/Request\.cf|ENOTFOUND workers\.cloudflare\.com|at GetAddrInfoReqWrap|Unknown (user|env) config "nodedir"/.test(
          l,
        ),
    )
    .join('\n');
}

async function waitReady(url: string, run: Running, timeoutMs: number, path: '/' | '/status' = '/'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastProblem = 'no attempt yet';
  while (Date.now() < deadline) {
    if (run.hasExited()) {
      const text = run.output();
      throw new StartError(
        `wrangler dev exited (code ${run.child.exitCode}, signal ${run.child.signalCode}) before ${url} answered.\n--- wrangler output ---\n${tidy(text)}`,
        /EADDRINUSE|address already in use/i.test(text),
      );
    }
    // workerd could not bind the port (someone took it after freePort()): wrangler's API does not exit on that.
    if (/Address already in use/i.test(run.output()))
      throw new StartError(`${url}: address already in use.\n--- wrangler output ---\n${tidy(run.output())}`, true);
    try {
      const res = await fetch(url + (path === '/' ? '' : path), { signal: AbortSignal.timeout(2_000) });
      const body = await res.text();
      if (res.ok && body.includes(path === '/' ? 'promptgate' : '"generation"')) return;
      lastProblem = `HTTP ${res.status}: ${body.slice(0, 200)}`;
    } catch (e) {
      lastProblem = String((e as Error).cause ?? e);
    }
    await sleep(250);
  }
  throw new StartError(
    `wrangler dev did not answer ${url} within ${timeoutMs} ms (last: ${lastProblem}).\n--- wrangler output ---\n${tidy(run.output())}`,
    false,
  );
}

async function stopRunning(run: Running): Promise<void> {
  if (groupAlive(run.pgid)) {
    killGroup(run.pgid, 'SIGTERM');
    await within(run.exited, STOP_GRACE_MS);
    // npm exec may exit before its grandchildren (workerd); give them a moment, then insist.
    const deadline = Date.now() + 2_000;
    while (groupAlive(run.pgid) && Date.now() < deadline) await sleep(100);
    killGroup(run.pgid, 'SIGKILL');
  }
  await within(run.exited, STOP_GRACE_MS);
  run.child.stdout?.destroy();
  run.child.stderr?.destroy();
}

/**
 * Starts `wrangler dev` on a fresh persist dir and publishes the prompts. Rejects with
 * wrangler's output if it does not come up within `readyTimeoutMs`; in every
 * failure case nothing is left running and the temp dir is removed.
 */
export async function startGateway(opts: GatewayOptions = {}): Promise<Gateway> {
  installHooks();
  const promptsDir = opts.promptsDir ?? join(PROJECT_ROOT, 'prompts');
  const adminToken = randomBytes(16).toString('hex');
  // Rate limits off unless a test turns them on (test/e2e/limits.test.ts): every client here is 127.0.0.1.
  const vars: Record<string, string> = {
    PAGE_SIZE: String(opts.pageSize ?? 50),
    ADMIN_TOKEN: adminToken,
    RATE_LIMITS: 'off',
  };
  for (const [k, v] of Object.entries(opts.vars ?? {})) vars[k] = String(v);

  // One temp root per gateway: <root>/state is the persist dir.
  const root = mkdtempSync(join(tmpdir(), 'promptgate-e2e-'));
  const persistDir = join(root, 'state');
  mkdirSync(persistDir);
  const entry: Live = { pgid: 0, dir: root };
  live.add(entry);
  try {
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const run = spawnWrangler(port, persistDir, vars, opts.devtools ?? false);
      entry.pgid = run.pgid;
      try {
        await waitReady(url, run, opts.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS, opts.readyPath);
        await pushDir(url, adminToken, promptsDir);
      } catch (e) {
        await stopRunning(run);
        entry.pgid = 0;
        // Someone took the port between freePort() and wrangler binding it: try another.
        if (e instanceof StartError && e.portTaken && attempt < START_ATTEMPTS) continue;
        throw e;
      }

      let stopping: Promise<void> | undefined;
      return {
        url,
        mcpUrl: `${url}/mcp`,
        persistDir,
        adminToken,
        pgid: run.pgid,
        publish: (dir) => pushDir(url, adminToken, dir),
        output: () => tidy(run.output()),
        stop: () =>
          (stopping ??= (async () => {
            try {
              await stopRunning(run);
            } finally {
              live.delete(entry);
              removeDir(root);
            }
          })()),
      };
    }
  } catch (e) {
    if (entry.pgid) killGroup(entry.pgid, 'SIGKILL');
    live.delete(entry);
    removeDir(root);
    throw e;
  }
}
