/**
 * An interrupted push forgets its upload, and does nothing more: the CLI, run as a user runs it,
 * against a stand-in gateway that holds a request open, as a slow link would, while the test
 * sends the signal. (The gateway's side of DELETE /admin/uploads/:id is the e2e suites'.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { PART_PROMPTS } from '../../cli/parts.js';

type Json = (status: number, body: unknown) => void;
/** Each request as it arrived. */
const seen: string[] = [];
/** How many had arrived when the test sent SIGINT. */
let signalAt = 0;
const held: ServerResponse[] = [];
/** How the stand-in answers the requests the test is about; undefined: as the gateway would. */
let answer: (req: IncomingMessage, res: ServerResponse, json: Json) => boolean | undefined;

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  req.resume();
  req.on('end', () => {
    seen.push(`${req.method} ${req.url}`);
    const json: Json = (status, body) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (answer(req, res, json)) return;
    if (req.method === 'POST' && req.url === '/admin/uploads') return json(201, { upload: { id: 'up-1' } });
    if (req.method === 'POST' && req.url === '/admin/uploads/up-1/prompts')
      return json(200, { upload: { id: 'up-1' } });
    if (req.method === 'DELETE' && req.url === '/admin/uploads/up-1') return json(200, { deleted: 'up-1' });
    if (req.url === '/admin/skills/files/missing') return json(200, { missing: [] });
    const diff = { added: ['p_0'], changed: [], removed: [], unchanged: [] };
    if (req.url!.includes('publish')) return json(200, { ok: true, generation: 2, diff, versions: { p_0: 1 } });
    json(404, { error: { message: 'not here' } });
  });
});

beforeAll(() => new Promise<void>((r) => server.listen(0, '127.0.0.1', r)));
beforeEach(() => void (seen.length = 0));
afterAll(() => {
  for (const res of held) res.destroy();
  server.close();
});

let child: ChildProcess;

/** `promptgate push` of a set sent in parts; its exit code and output once it ends. */
function push(...flags: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'pg-interrupt-'));
  for (let i = 0; i <= PART_PROMPTS; i++)
    writeFileSync(join(dir, `p_${i}.md`), `---\nname: p_${i}\n---\n## user\nprompt ${i}\n`);
  const { port } = server.address() as AddressInfo;
  child = spawn('node', ['bin/promptgate.mjs', 'push', dir, ...flags, '--url', `http://127.0.0.1:${port}`], {
    env: { ...process.env, PROMPTGATE_TOKEN: 'test-token' },
  });
  let output = '';
  child.stdout!.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (output += b.toString()));
  return new Promise<{ code: number | null; output: string }>((r) => child.on('exit', (code) => r({ code, output })));
}

const interrupt = () => {
  signalAt = seen.length;
  child.kill('SIGINT');
};

it('Ctrl-C in the middle of an upload in parts deletes the upload, then exits 130', async () => {
  answer = (req, res) => {
    if (req.url !== '/admin/uploads/up-1/prompts') return;
    held.push(res);
    interrupt();
    return true;
  };
  const { code, output } = await push();
  expect(code, output).toBe(130);
  expect(seen).toEqual(['POST /admin/uploads', 'POST /admin/uploads/up-1/prompts', 'DELETE /admin/uploads/up-1']);
  expect(output).toContain('SIGINT');
}, 60_000);

it('Ctrl-C while the plan is awaited publishes nothing, even when the plan then arrives', async () => {
  answer = (req, res, json) => {
    const diff = { added: ['p_0'], changed: [], removed: [], unchanged: [] };
    if (req.url === '/admin/uploads/up-1/publish?dry_run=1&prune=1') {
      interrupt();
      setTimeout(() => json(200, { ok: true, generation: 1, diff, versions: {}, dryRun: true }), 50);
      return true;
    }
    // Slow to answer: the push has all this time to go on, and must not.
    if (req.method !== 'DELETE') return undefined;
    setTimeout(() => json(200, { deleted: 'up-1' }), 1_000);
    return true;
  };
  const { code, output } = await push('--prune');
  expect(code, output).toBe(130);
  expect(seen[signalAt - 1]).toBe('POST /admin/uploads/up-1/publish?dry_run=1&prune=1');
  expect(seen.slice(signalAt)).toEqual(['DELETE /admin/uploads/up-1']);
  expect(output).not.toContain('published');
}, 60_000);

it('Ctrl-C while the upload is being opened deletes the upload it opens, and sends nothing more', async () => {
  answer = (req, res, json) => {
    if (req.url !== '/admin/uploads' || req.method !== 'POST') return undefined;
    // The gateway has opened it; its answer is on the way when the user stops the push.
    interrupt();
    setTimeout(() => json(201, { upload: { id: 'up-1' } }), 200);
    return true;
  };
  const { code, output } = await push();
  expect(code, output).toBe(130);
  expect(seen).toEqual(['POST /admin/uploads', 'DELETE /admin/uploads/up-1']);
}, 60_000);
