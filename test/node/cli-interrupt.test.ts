/**
 * An interrupted push forgets its upload: the CLI, run as a user runs it, against a stand-in
 * gateway that opens an upload and then never answers the first part, as a slow link would.
 * (The gateway's side of DELETE /admin/uploads/:id is the e2e suites'.)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PART_PROMPTS } from '../../cli/parts.js';

const seen: string[] = [];
let partArrived: () => void;
const part = new Promise<void>((r) => (partArrived = r));
const held: ServerResponse[] = [];

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  req.resume();
  req.on('end', () => {
    seen.push(`${req.method} ${req.url}`);
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method === 'POST' && req.url === '/admin/uploads') return json(201, { upload: { id: 'up-1' } });
    if (req.method === 'POST' && req.url === '/admin/uploads/up-1/prompts') {
      held.push(res);
      return partArrived();
    }
    if (req.method === 'DELETE' && req.url === '/admin/uploads/up-1') return json(200, { deleted: 'up-1' });
    json(404, { error: { message: 'not here' } });
  });
});

beforeAll(() => new Promise<void>((r) => server.listen(0, '127.0.0.1', r)));
afterAll(() => {
  for (const res of held) res.destroy();
  server.close();
});

it('Ctrl-C in the middle of an upload in parts deletes the upload, then exits 130', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pg-interrupt-'));
  for (let i = 0; i <= PART_PROMPTS; i++)
    writeFileSync(join(dir, `p_${i}.md`), `---\nname: p_${i}\n---\n## user\nprompt ${i}\n`);
  const { port } = server.address() as AddressInfo;
  const child = spawn('node', ['bin/promptgate.mjs', 'push', dir, '--url', `http://127.0.0.1:${port}`], {
    env: { ...process.env, PROMPTGATE_TOKEN: 'test-token' },
  });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  await part;
  child.kill('SIGINT');
  expect(await exited, stderr).toBe(130);
  expect(seen).toEqual(['POST /admin/uploads', 'POST /admin/uploads/up-1/prompts', 'DELETE /admin/uploads/up-1']);
  expect(stderr).toContain('SIGINT');
}, 60_000);
