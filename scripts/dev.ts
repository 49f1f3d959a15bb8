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

const wrangler = spawn(
  'npx',
  ['tsx', 'scripts/wrangler-dev.ts', '--ip', '127.0.0.1', '--port', port, ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
const stop = () => {
  wrangler.kill('SIGTERM');
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
wrangler.on('exit', (code) => process.exit(code ?? 1));

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
