/**
 * The process lifecycle of one harness: a cleanup registry run in reverse on every way out
 * (success, error, global timeout, SIGINT/SIGTERM), each step bounded; synchronous exit
 * hooks for what must die even when another signal hook exits first; and the temp dir that
 * also holds Miniflare's state. Child processes are started through lib/children.mjs.
 *
 * BENCH_LOAD_CHECK=1 makes a harness load (imports resolve, knobs parse) and exit 0 without
 * running: the bench's part of the repository check (bench/check.mjs).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { withTimeout } from './async.mjs';
import { execInGroup, startPortChild } from './children.mjs';

export const LOAD_CHECK = process.env.BENCH_LOAD_CHECK === '1';

/**
 * `name` prefixes its log and error lines; the global timeout (`timeoutS`, named
 * `timeoutVar` in the message) and the process handlers are installed only when `install`.
 * Set `h.currentLoad` to a running autocannon instance so that shutdown stops it first.
 */
export function createHarness({ name, timeoutS, timeoutVar, cleanupStepMs = 15_000, install = true }) {
  const cleanups = [];
  let shuttingDown = false;
  let globalTimer;
  const h = {
    name,
    log: (...a) => console.error(`${name}:`, ...a),
    /** Synchronous last words on process exit (Miniflare's own signal hook may exit first). */
    exitHooks: [],
    currentLoad: null,
    get shuttingDown() {
      return shuttingDown;
    },
    /** Registers a disposer; they run in reverse order, each bounded, on every way out. */
    onCleanup(what, fn) {
      const entry = { name: what, fn };
      cleanups.push(entry);
      return () => {
        const i = cleanups.indexOf(entry);
        if (i >= 0) cleanups.splice(i, 1);
      };
    },
    exec: (cmd, args, options) => execInGroup(h, cmd, args, options),
    startPortChild: (args, label) => startPortChild(h, args, label),
    makeTempDir: (prefix) => makeTempDir(h, prefix),
    /** Runs main, then cleans up and exits (0, or 1 with the error). */
    runMain: (main) =>
      LOAD_CHECK
        ? undefined
        : main().then(
            () => shutdown(0),
            (e) => shutdown(1, e),
          ),
  };

  async function cleanup() {
    try {
      h.currentLoad?.stop();
    } catch {}
    while (cleanups.length) {
      const { name: what, fn } = cleanups.pop();
      try {
        await withTimeout(Promise.resolve().then(fn), cleanupStepMs, `cleanup ${what}`);
      } catch (e) {
        console.error(`${name}: cleanup of ${what} failed: ${e?.message ?? e}`);
      }
    }
  }

  async function shutdown(code, reason) {
    if (shuttingDown) return;
    shuttingDown = true;
    clearTimeout(globalTimer);
    if (reason) console.error(`\n${name}: FAILED: ${reason?.stack ?? reason}`);
    // The last resort: whatever happens in cleanup, the process ends.
    setTimeout(() => {
      console.error(`${name}: cleanup did not finish in 60 s; exiting anyway`);
      process.exit(code || 3);
    }, 60_000).unref();
    await cleanup();
    process.exit(code);
  }
  h.shutdown = shutdown;

  if (install && !LOAD_CHECK) {
    globalTimer = setTimeout(
      () => shutdown(2, new Error(`global timeout of ${timeoutS} s reached (${timeoutVar})`)),
      timeoutS * 1000,
    );
    installProcessHandlers(h);
  }
  return h;
}

function installProcessHandlers(h) {
  process.on('SIGINT', () => h.shutdown(130, new Error('interrupted (SIGINT)')));
  process.on('SIGTERM', () => h.shutdown(143, new Error('terminated (SIGTERM)')));
  process.on('exit', () => {
    for (const fn of h.exitHooks.splice(0).reverse()) {
      try {
        fn();
      } catch {}
    }
  });
  process.on('uncaughtException', (e) => h.shutdown(1, e));
  process.on('unhandledRejection', (e) => h.shutdown(1, e));
}

/**
 * A fresh temp dir under os.tmpdir(), removed on every way out. TMPDIR is pointed inside it:
 * Miniflare keeps its state (Durable Object SQLite files, KV) under os.tmpdir() and removes it
 * fire-and-forget on dispose; inside our temp dir it is removed for certain.
 */
function makeTempDir(h, prefix) {
  const tmp = mkdtempSync(join(os.tmpdir(), prefix));
  h.onCleanup('temp dir', () => rmSync(tmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }));
  h.exitHooks.push(() => rmSync(tmp, { recursive: true, force: true }));
  process.env.TMPDIR = join(tmp, 'tmp');
  mkdirSync(process.env.TMPDIR);
  return tmp;
}
