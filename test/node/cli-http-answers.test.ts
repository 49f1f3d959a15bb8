/**
 * What the CLI says when the gateway does not answer as the admin API (cli/http.ts), against real
 * local servers: a redirect is reported, never followed (fetch would drop the token on a move to
 * another origin and turn a POST into a GET); a connection lost after a write was sent says the
 * write may have been applied; a connection never made says the gateway cannot be reached.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { send } from '../../cli/http.js';

const SECRET = 'secret-admin-token-1234';
const headers = { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' };
/** Each request as it arrived: method and path. */
const seen: string[] = [];

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  req.resume();
  req.on('end', () => {
    seen.push(`${req.method} ${req.url}`);
    if (req.url === '/admin/moved')
      return res.writeHead(301, { location: `https://gateway.example/admin/publish?token=${SECRET}` }).end();
    if (req.url === '/admin/here') return res.writeHead(302, { location: '/admin/there' }).end();
    // The body was read whole, then the connection is dropped before any answer.
    if (req.url === '/admin/drop') return req.socket.destroy();
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"admin_disabled"}}');
  });
});

let base: string;
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());
beforeEach(() => void (seen.length = 0));

const failure = (path: string, method = 'POST') =>
  send(new URL(path, base), { method, headers, body: '{"prompts":[]}' }).then(
    () => 'answered',
    (e: Error) => e.message,
  );

describe('a redirect', () => {
  it('is an error naming its status and where it points, and is not followed', async () => {
    const message = await failure('/admin/here');
    expect(message).toBe(
      `POST /admin/here: the gateway answered HTTP 302, a redirect to ${base}/admin/there, which is not followed; use the final URL as --url (or PROMPTGATE_URL)`,
    );
    expect(seen).toEqual(['POST /admin/here']);
  });

  it('to another origin names it without the credentials', async () => {
    const message = await failure('/admin/moved');
    expect(message).toContain('HTTP 301, a redirect to https://gateway.example/admin/publish?token=[credential]');
    expect(message).not.toContain(SECRET);
  });
});

describe('no answer', () => {
  it('to a write whose connection closed after it was sent says it may have been applied', async () => {
    const message = await failure('/admin/drop');
    expect(message).toMatch(
      new RegExp(`^no answer from ${base} to POST /admin/drop \\(the request may have been applied\\): `),
    );
    expect(message).not.toContain(SECRET);
    expect(seen).toEqual(['POST /admin/drop']);
  });

  it('to a read says only that there was none', async () => {
    const message = await send(new URL('/admin/drop', base), { method: 'GET', headers }).catch((e: Error) => e.message);
    expect(message).toMatch(new RegExp(`^no answer from ${base} to GET /admin/drop: `));
  });

  it('from a gateway that cannot be connected to says it cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    for (const host of ['127.0.0.1', 'localhost']) {
      const message = await send(new URL(`http://${host}:${port}/admin/publish`), { method: 'POST', headers }).catch(
        (e: Error) => e.message,
      );
      expect(message).toMatch(new RegExp(`^cannot reach http://${host}:${port}: .*ECONNREFUSED`));
      expect(message).not.toContain(SECRET);
    }
  });
});
