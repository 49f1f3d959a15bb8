/**
 * `npm start`: runs `wrangler dev` (local KV and Durable Objects) without
 * the DevTools inspector (scripts/wrangler-dev.ts says why), publishes
 * ./prompts through the admin API as soon as the gateway answers, and
 * republishes whenever a prompt file changes, so connected clients get
 * notifications/prompts/list_changed while you edit.
 */
import { spawn } from 'node:child_process';
import { readFileSync, watch } from 'node:fs';
import { pushDir } from '../cli/push.js';

const dir = process.env.PROMPTS_DIR ?? 'prompts';
const port = process.env.PORT ?? '8787';
const base = `http://127.0.0.1:${port}`;

function devToken(): string {
  if (process.env.PROMPTGATE_TOKEN) return process.env.PROMPTGATE_TOKEN;
  const m = /^ADMIN_TOKEN=(.*)$/m.exec(readFileSync('.dev.vars', 'utf8'));
  if (!m) throw new Error('ADMIN_TOKEN is not set in .dev.vars');
  return m[1]!.trim();
}

/**
 * The runtime runs in a direct child (node, not npx or a shell), so a signal sent to it arrives
 * and wrangler-dev.ts stops workerd before it exits.
 */
const wrangler = spawn(
  process.execPath,
  ['--import', 'tsx', 'scripts/wrangler-dev.ts', '--ip', '127.0.0.1', '--port', port, ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
/** How long the runtime may take to stop before it is killed. */
const STOP_MS = 10_000;
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  wrangler.kill('SIGTERM');
  setTimeout(() => wrangler.kill('SIGKILL'), STOP_MS).unref();
};
wrangler.on('exit', (code) => process.exit(stopping ? 0 : (code ?? 1)));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
process.on('SIGHUP', stop);

/**
 * `npm start` runs this under `sh -c`, and npm passes a SIGTERM (an editor's stop button, a
 * process manager) to that shell only: the shell dies and this process is handed to another
 * parent without a signal. Noticing that is the only way to stop the runtime and free the port.
 */
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop();
}, 500).unref();

async function ready(): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(base)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`gateway did not answer on ${base} within 60 s`);
}

async function publish(why: string): Promise<void> {
  try {
    const r = await pushDir(base, devToken(), dir);
    console.log(
      `[promptgate] ${why}: published ${r.prompts} prompts and ${r.skills} skills from ${dir}/ as generation ${r.generation}; MCP endpoint ${base}/mcp`,
    );
  } catch (e) {
    console.error(`[promptgate] ${why}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

await ready();
await publish('start');
let timer: NodeJS.Timeout | undefined;
watch(dir, { recursive: true }, () => {
  clearTimeout(timer);
  timer = setTimeout(() => void publish('change'), 300);
});
