/**
 * The CLI waits out the admin rate limit (cli/http.ts): against a real local server that answers
 * 429 with Retry-After, a request is sent again, body and all, after the wait; a gateway that
 * never stops refusing ends in a clear error, not a hang; the user is told why the command paused.
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AdminClient } from '../../cli/api.js';
import { retryAfterSeconds } from '../../cli/http.js';

/** Every request as it arrived: method, path and body. */
const seen: { method: string; url: string; body: string }[] = [];
/** How many more times each path answers 429 (Infinity: always), with which Retry-After and error code. */
let refuse: Record<string, { times: number; after: string; code?: string }> = {};

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const url = req.url!;
    seen.push({ method: req.method!, url, body: Buffer.concat(chunks).toString() });
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    const r = refuse[url];
    if (r && r.times > 0) {
      r.times--;
      return json(
        429,
        { error: { code: r.code ?? 'rate_limited', message: 'Too many admin requests from this client' } },
        { 'retry-after': r.after },
      );
    }
    if (url.startsWith('/admin/skills/files/sha256:') && req.method === 'GET') return res.end('file bytes');
    if (url.startsWith('/admin/skills/files/sha256:') && req.method === 'PUT') return json(201, { ok: true });
    if (url === '/admin/skills/files/missing') return json(200, { missing: ['sha256:b'] });
    if (url === '/admin/keys') return json(200, { keys: [] });
    json(404, { error: { message: 'not here' } });
  });
});

let base: string;
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());
beforeEach(() => {
  seen.length = 0;
  refuse = {};
});

const client = (notices: string[], retry: { maxWaitS?: number; maxRefusals?: number } = {}) =>
  new AdminClient(base, 'test-token', { ...retry, notice: (l) => void notices.push(l) });

describe('a 429 from the gateway', () => {
  it('is waited out for Retry-After seconds, then the same request succeeds', async () => {
    refuse['/admin/skills/files/sha256:a'] = { times: 2, after: '1' };
    const notices: string[] = [];
    const started = Date.now();
    const bytes = await client(notices).fetchFile('sha256:a');
    expect(new TextDecoder().decode(bytes)).toBe('file bytes');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect(seen.map((s) => s.url)).toEqual(Array(3).fill('/admin/skills/files/sha256:a'));
    expect(notices).toEqual(
      Array(2).fill(
        "promptgate: the gateway's rate limit was reached (HTTP 429); waiting 1 s, then sending GET /admin/skills/files/sha256:a again",
      ),
    );
  });

  it('re-sends the body: an upload of bytes and a JSON request arrive whole the second time', async () => {
    refuse['/admin/skills/files/sha256:b'] = { times: 1, after: '0' };
    refuse['/admin/skills/files/missing'] = { times: 1, after: '0' };
    const api = client([]);
    expect(await api.missingFiles(['sha256:b'])).toEqual(['sha256:b']);
    await api.uploadFile('sha256:b', new TextEncoder().encode('the bytes'));
    expect(seen.map((s) => `${s.method} ${s.url} ${s.body}`)).toEqual([
      'POST /admin/skills/files/missing {"digests":["sha256:b"]}',
      'POST /admin/skills/files/missing {"digests":["sha256:b"]}',
      'PUT /admin/skills/files/sha256:b the bytes',
      'PUT /admin/skills/files/sha256:b the bytes',
    ]);
  });

  it('is waited out for at most the cap, however long Retry-After asks for', async () => {
    refuse['/admin/keys'] = { times: 1, after: '3600' };
    const notices: string[] = [];
    expect((await client(notices, { maxWaitS: 1 }).listKeys()).keys).toEqual([]);
    expect(notices).toEqual([expect.stringContaining('waiting 1 s')]);
  });

  it('that never ends is given up on after a bounded number of tries, with a clear error', async () => {
    refuse['/admin/keys'] = { times: Infinity, after: '0' };
    await expect(client([], { maxRefusals: 3 }).listKeys()).rejects.toThrow(
      'GET /admin/keys was refused 3 times in a row over 0 s (HTTP 429: Too many admin requests from this client); ' +
        'the gateway rate limits /admin per client address: try again later',
    );
    expect(seen).toHaveLength(3);
  });

  it('is not waited out when it is a lock-out after wrong tokens: waiting does not make a token right', async () => {
    refuse['/admin/keys'] = { times: Infinity, after: '60', code: 'locked_out' };
    const notices: string[] = [];
    await expect(client(notices).listKeys()).rejects.toThrow(
      'GET /admin/keys: Too many admin requests from this client (HTTP 429); check the token (--token or PROMPTGATE_TOKEN)',
    );
    expect(seen).toHaveLength(1);
    expect(notices).toEqual([]);
  });

  it('pauses the CLI with one line on stderr saying why', async () => {
    refuse['/admin/keys'] = { times: 1, after: '1' };
    const child = spawn('node', ['bin/promptgate.mjs', 'keys', 'list', '--url', base], {
      env: { ...process.env, PROMPTGATE_TOKEN: 'test-token' },
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code, stderr).toBe(0);
    expect(stderr).toBe(
      "promptgate: the gateway's rate limit was reached (HTTP 429); waiting 1 s, then sending GET /admin/keys again\n",
    );
  }, 30_000);
});

describe('Retry-After', () => {
  it('is seconds or an HTTP date; anything else is unusable', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterSeconds('7', now)).toBe(7);
    expect(retryAfterSeconds('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    expect(retryAfterSeconds(null, now)).toBeUndefined();
  });
});
