/**
 * Shared plumbing of the benchmark harnesses (run.mjs, fanout.mjs, aggregate.mjs).
 *
 * Owns: env knob parsing, the process lifecycle (cleanup registry, synchronous exit hooks,
 * bounded shutdown, global timeout, signal/error handlers), child processes in their own
 * process group (exec) and port-announcing children (startPortChild), the temp dir that also
 * holds Miniflare's state, the gateway build (`wrangler deploy --dry-run`), wrangler.toml read
 * through wrangler in a child process, the base Miniflare options derived from it, and small
 * numeric/format helpers (median, percentile, round2, fmtInt, pkgVersion).
 *
 * What each harness measures, checks and prints stays in its own file.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(BENCH_DIR, '..');
export const OUT_DIR = join(BENCH_DIR, 'out');

export const PROTOCOL = '2025-11-25';
export const JSON_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

// ---------------------------------------------------------------- settings

export function envNum(name, fallback, { min = 0, integer = true } = {}) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) {
    throw new Error(`${name} must be ${integer ? 'an integer' : 'a number'} >= ${min}, got ${JSON.stringify(raw)}`);
  }
  return n;
}

/** Comma-separated connection counts (integers >= 1). */
export function envConnections(name, fallback = '10,50') {
  return (process.env[name] || fallback).split(',').map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name}: bad value ${JSON.stringify(s)}`);
    return n;
  });
}

// ---------------------------------------------------------------- helpers

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const withTimeout = (p, ms, what) => {
  let timer;
  return Promise.race([
    p,
    new Promise((_, rej) => {
      timer = setTimeout(() => rej(new Error(`${what}: timed out after ${ms} ms`)), ms);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
};
/** Median of the finite values (NaN when there are none). */
export const median = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
/** Nearest-rank percentile of an ascending-sorted array. */
export const percentile = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] : NaN);
export const pkgVersion = (name) => JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
export const round2 = (n) => (Number.isFinite(n) ? Math.round(n * 100) / 100 : n);
export const fmtInt = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');

// ---------------------------------------------------------------- lifecycle

/**
 * The process lifecycle of one harness. `name` prefixes its log and error lines; the global
 * timeout (`timeoutS`, named `timeoutVar` in the message) and the process handlers are only
 * installed when `install` (aggregate's upstream child processes do without).
 * Set `h.currentLoad` to a running autocannon instance so that shutdown stops it first.
 */
export function createHarness({ name, timeoutS, timeoutVar, cleanupStepMs = 15_000, install = true }) {
  const cleanups = [];
  /** Synchronous last words on process exit (Miniflare's own signal hook may exit first). */
  const exitHooks = [];
  let shuttingDown = false;
  let globalTimer;

  const log = (...a) => console.error(`${name}:`, ...a);

  /** Registers a disposer; they run in reverse order, each bounded, on every way out. */
  function onCleanup(what, fn) {
    const entry = { name: what, fn };
    cleanups.push(entry);
    return () => {
      const i = cleanups.indexOf(entry);
      if (i >= 0) cleanups.splice(i, 1);
    };
  }

  const h = {
    name,
    log,
    onCleanup,
    exitHooks,
    currentLoad: null,
    get shuttingDown() {
      return shuttingDown;
    },
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

  /** Runs main, then cleans up and exits (0, or 1 with the error). */
  h.runMain = (main) =>
    main().then(
      () => shutdown(0),
      (e) => shutdown(1, e),
    );

  if (install) {
    globalTimer = setTimeout(() => shutdown(2, new Error(`global timeout of ${timeoutS} s reached (${timeoutVar})`)), timeoutS * 1000);
    process.on('SIGINT', () => shutdown(130, new Error('interrupted (SIGINT)')));
    process.on('SIGTERM', () => shutdown(143, new Error('terminated (SIGTERM)')));
    process.on('exit', () => {
      for (const fn of exitHooks.splice(0).reverse()) {
        try {
          fn();
        } catch {}
      }
    });
    process.on('uncaughtException', (e) => shutdown(1, e));
    process.on('unhandledRejection', (e) => shutdown(1, e));
  }

  /** Runs a command to completion; its own process group, so that a kill also reaches what it starts (npx -> wrangler -> esbuild). */
  h.exec = (cmd, args, { timeoutMs, cwd = ROOT, env = process.env } = {}) =>
    new Promise((resolvePromise, reject) => {
      const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      const killGroup = () => {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {}
      };
      const untrackCleanup = onCleanup(`${cmd} ${args[0] ?? ''}`, () => child.exitCode === null && killGroup());
      exitHooks.push(killGroup);
      const untrack = () => {
        untrackCleanup();
        const i = exitHooks.indexOf(killGroup);
        if (i >= 0) exitHooks.splice(i, 1);
      };
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const timer = setTimeout(() => {
        killGroup();
        reject(new Error(`${cmd} ${args.join(' ')}: timed out after ${timeoutMs} ms\n${stdout}\n${stderr}`));
      }, timeoutMs);
      child.on('error', (e) => {
        clearTimeout(timer);
        untrack();
        reject(e);
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        untrack();
        if (code === 0) resolvePromise({ stdout, stderr });
        else reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}\n${stdout}\n${stderr}`));
      });
    });

  /**
   * Starts `node <args>` whose first stdout line is {"port": N}; registered for cleanup as
   * `label` (stdin closed, SIGTERM, SIGKILL after 3 s) and killed on exit. Resolves { child, port }.
   */
  h.startPortChild = async (args, label) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
    const alive = () => child.exitCode === null && child.signalCode === null;
    exitHooks.push(() => alive() && child.kill('SIGKILL'));
    onCleanup(label, async () => {
      if (!alive()) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin.end();
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000).unref())]);
      if (alive()) child.kill('SIGKILL');
    });
    const port = await withTimeout(
      new Promise((res, rej) => {
        let buf = '';
        child.once('exit', (code) => rej(new Error(`${label} exited early with ${code}`)));
        child.stdout.on('data', (d) => {
          buf += d;
          const nl = buf.indexOf('\n');
          if (nl >= 0) {
            try {
              res(JSON.parse(buf.slice(0, nl)).port);
            } catch (e) {
              rej(e);
            }
          }
        });
      }),
      20_000,
      `${label} start`,
    );
    child.stdout.resume();
    return { child, port };
  };

  /**
   * A fresh temp dir under os.tmpdir(), removed on every way out. TMPDIR is pointed inside it:
   * Miniflare keeps its state (Durable Object SQLite files, KV) under os.tmpdir() and removes it
   * fire-and-forget on dispose; inside our temp dir it is removed for certain.
   */
  h.makeTempDir = (prefix) => {
    const tmp = mkdtempSync(join(os.tmpdir(), prefix));
    onCleanup('temp dir', () => rmSync(tmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }));
    exitHooks.push(() => rmSync(tmp, { recursive: true, force: true }));
    process.env.TMPDIR = join(tmp, 'tmp');
    mkdirSync(process.env.TMPDIR);
    return tmp;
  };

  return h;
}

// ---------------------------------------------------------------- build + config

/** The gateway bundle as `wrangler deploy --dry-run` writes it (index.js), with its sizes. */
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
  return { scriptPath, buildMs, rawBytes: raw.length, gzipBytes: gzipSync(raw).length, wranglerReports: wranglerLine ?? null };
}

/**
 * wrangler.toml as wrangler reads it. In a child process: importing `wrangler` installs
 * SIGINT/SIGTERM handlers that call process.exit() before our cleanup could run.
 * Durable Object bindings carry useSQLite from the migrations' new_sqlite_classes; vars are
 * strings (non-strings JSON-encoded), as Miniflare bindings.
 */
export async function readWranglerConfig(h) {
  const script =
    "const { unstable_readConfig } = await import('wrangler');" +
    'const c = unstable_readConfig({ config: process.argv[1] });' +
    'process.stdout.write(JSON.stringify({ compatibility_date: c.compatibility_date, compatibility_flags: c.compatibility_flags,' +
    ' vars: c.vars, kv_namespaces: c.kv_namespaces, durable_objects: c.durable_objects, migrations: c.migrations }));';
  const { stdout } = await h.exec(process.execPath, ['--input-type=module', '-e', script, join(ROOT, 'wrangler.toml')], { timeoutMs: 60_000 });
  const cfg = JSON.parse(stdout);
  const sqliteClasses = new Set(cfg.migrations.flatMap((m) => m.new_sqlite_classes ?? []));
  const dos = Object.fromEntries(
    cfg.durable_objects.bindings.map((b) => [b.name, { className: b.class_name, useSQLite: sqliteClasses.has(b.class_name) }]),
  );
  return {
    compatibilityDate: cfg.compatibility_date,
    compatibilityFlags: cfg.compatibility_flags ?? [],
    vars: Object.fromEntries(Object.entries(cfg.vars ?? {}).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])),
    kv: cfg.kv_namespaces.map((k) => k.binding),
    dos,
  };
}

/** The ceiling Worker (ceiling.mjs) bundled with the esbuild wrangler ships (no extra dependency). */
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

/** A Worker bundle on Miniflare on loopback (random port), with the gateway's compatibility settings. */
function workerOptions(name, build, wcfg) {
  return {
    name,
    host: '127.0.0.1',
    port: 0,
    modules: true,
    scriptPath: build.scriptPath,
    modulesRoot: dirname(build.scriptPath),
    compatibilityDate: wcfg.compatibilityDate,
    compatibilityFlags: wcfg.compatibilityFlags,
  };
}

/** Miniflare options for the ceiling: its fixed bodies as text bindings. */
export function ceilingOptions(build, wcfg, bodies) {
  return { ...workerOptions('ceiling', build, wcfg), bindings: bodies };
}

/** Miniflare options common to every gateway instance; the harness adds bindings etc. */
export function gatewayBaseOptions(build, wcfg, kvPrefix) {
  return {
    ...workerOptions('promptgate', build, wcfg),
    kvNamespaces: Object.fromEntries(wcfg.kv.map((b) => [b, `${kvPrefix}-${b.toLowerCase()}`])),
    durableObjects: wcfg.dos,
  };
}
