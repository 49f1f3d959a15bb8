/**
 * Child processes of a harness, each registered for cleanup and killed on exit: commands run
 * to completion in their own process group (npx -> wrangler -> esbuild all die with a kill),
 * and long-lived Node servers that announce their port as their first stdout line.
 */
import { spawn } from 'node:child_process';
import { withTimeout } from './async.mjs';
import { ROOT } from './paths.mjs';

/** Runs a command to completion; resolves { stdout, stderr }, rejects on a non-zero exit or the timeout. */
export function execInGroup(h, cmd, args, { timeoutMs, cwd = ROOT, env = process.env } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const killGroup = () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    };
    const untrackCleanup = h.onCleanup(`${cmd} ${args[0] ?? ''}`, () => child.exitCode === null && killGroup());
    h.exitHooks.push(killGroup);
    const untrack = () => {
      untrackCleanup();
      const i = h.exitHooks.indexOf(killGroup);
      if (i >= 0) h.exitHooks.splice(i, 1);
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
}

/**
 * Starts `node <args>` whose first stdout line is {"port": N}; registered for cleanup as
 * `label` (stdin closed, SIGTERM, SIGKILL after 3 s) and killed on exit. Resolves { child, port }.
 */
export async function startPortChild(h, args, label) {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  const alive = () => child.exitCode === null && child.signalCode === null;
  h.exitHooks.push(() => alive() && child.kill('SIGKILL'));
  h.onCleanup(label, async () => {
    if (!alive()) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.stdin.end();
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000).unref())]);
    if (alive()) child.kill('SIGKILL');
  });
  const port = await withTimeout(firstLinePort(child, label), 20_000, `${label} start`);
  child.stdout.resume();
  return { child, port };
}

function firstLinePort(child, label) {
  return new Promise((res, rej) => {
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
  });
}
