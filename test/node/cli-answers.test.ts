/**
 * A 2xx that is not the admin API's answer stops the command with an error saying so: against a
 * stand-in that answers every request as a Cloudflare Access login page, or a server of another
 * kind, would (an HTML page, `{}`), run as a user runs the CLI. Nothing is printed as done.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminClient } from '../../cli/api.js';

/** What the stand-in answers every request with. */
let answer: { type: string; body: string };
const LOGIN = { type: 'text/html; charset=utf-8', body: '<!doctype html><title>Sign in ・ Cloudflare Access</title>' };

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': answer.type }).end(answer.body));
});
let base: string;
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

function cli(...args: string[]) {
  const child = spawn('node', ['bin/promptgate.mjs', ...args, '--url', base], {
    env: { ...process.env, PROMPTGATE_TOKEN: 'test-token' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((r) =>
    child.on('exit', (code) => r({ code, stdout, stderr })),
  );
}

function promptDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pg-answers-'));
  writeFileSync(join(dir, 'hello.md'), '---\nname: hello\n---\n## user\nhello\n');
  return dir;
}

const KEY_ID = '3f9c0a61d2b47e85';

describe('a login page answered with 200', () => {
  it.each([
    ['push', ['push', promptDir()], 'POST /admin/publish?dry_run=1'],
    ['keys revoke', ['keys', 'revoke', KEY_ID], `DELETE /admin/keys/${KEY_ID}`],
    ['keys list', ['keys', 'list'], 'GET /admin/keys'],
    ['history', ['history', 'hello'], 'GET /admin/prompts/hello/history?limit=1000&facts=1'],
  ])(
    'stops %s with an error naming what answered',
    async (_, args, request) => {
      answer = LOGIN;
      const { code, stdout, stderr } = await cli(...args);
      expect(code).toBe(1);
      expect(stderr).toBe(
        `promptgate: ${request}: not the admin API's answer (HTTP 200, text/html); check --url (or PROMPTGATE_URL)\n`,
      );
      expect(stdout).toBe('');
    },
    30_000,
  );
});

describe('JSON without the fields a command reads', () => {
  it.each([
    ['push', ['push', promptDir()], 'generation is missing'],
    ['keys revoke', ['keys', 'revoke', KEY_ID], 'id is missing'],
    ['usage', ['usage'], 'from is missing'],
  ])(
    'stops %s with an error naming the field',
    async (_, args, why) => {
      answer = { type: 'application/json', body: '{}' };
      const { code, stdout, stderr } = await cli(...args);
      expect(code).toBe(1);
      expect(stderr).toContain(`not the admin API's answer (${why})`);
      expect(stdout).toBe('');
    },
    30_000,
  );

  it('names the field of a listed item that is wrong', async () => {
    const key = { id: KEY_ID, name: 'ci', groups: [], admin: false, createdAt: 'x', createdBy: 'admin' };
    answer = { type: 'application/json', body: JSON.stringify({ keys: [key, { ...key, groups: 'all' }] }) };
    await expect(new AdminClient(base, 'test-token').listKeys()).rejects.toThrow(
      "GET /admin/keys: not the admin API's answer (keys[1].groups is not a list)",
    );
  });

  it('a body that is not JSON, though labelled so, is said to be', async () => {
    answer = { type: 'application/json', body: '<html>' };
    await expect(new AdminClient(base, 'test-token').listKeys()).rejects.toThrow(
      "GET /admin/keys: not the admin API's answer (HTTP 200, a body that is not JSON)",
    );
  });
});
