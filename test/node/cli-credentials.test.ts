/**
 * The CLI never prints a credential: a token an HTTP header cannot carry (a line break pasted
 * with it) is refused by name before anything is sent, and an error from the network layer,
 * which may quote what it was given, is said without the credentials of the request.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { send } from '../../cli/http.js';

const SECRET = 's3cr3t-admin';

/** `promptgate <args>` against a port nothing listens on; its exit code and stderr. */
function cli(args: string[], env: Record<string, string> = {}) {
  const child = spawn('node', ['bin/promptgate.mjs', ...args], {
    env: { ...process.env, PROMPTGATE_URL: 'http://127.0.0.1:9', PROMPTGATE_TOKEN: '', ...env },
  });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  return new Promise<{ code: number | null; stderr: string }>((r) => child.on('exit', (code) => r({ code, stderr })));
}

describe('a malformed token', () => {
  it.each([
    ['a line break', `${SECRET}\ntoken`, 'it holds a line break'],
    ['a control character', `${SECRET}\x1btoken`, 'it holds a control character'],
    ['a character beyond Latin-1', `${SECRET}\u0100token`, 'not ASCII'],
    ['a trailing space', `${SECRET} `, 'starts or ends with a space'],
  ])(
    'holding %s is named malformed, and never printed',
    async (_, token, why) => {
      const ways: { args: string[]; env: Record<string, string> }[] = [
        { args: ['--token', token], env: {} },
        { args: [], env: { PROMPTGATE_TOKEN: token } },
      ];
      for (const given of ways) {
        const { code, stderr } = await cli(['history', 'foo', ...given.args], given.env);
        expect(code).not.toBe(0);
        expect(stderr).toContain('the token (--token or PROMPTGATE_TOKEN) is malformed');
        expect(stderr).toContain(why);
        expect(stderr).not.toContain(SECRET);
      }
    },
    30_000,
  );
});

it('a gateway URL holding a password is refused without printing it', async () => {
  const { code, stderr } = await cli(['keys', 'list', '--token', 't', '--url', `http://admin:${SECRET}@127.0.0.1:9`]);
  expect(code).not.toBe(0);
  expect(stderr).toContain('holds a user name or password');
  expect(stderr).not.toContain(SECRET);
}, 30_000);

it('a request that cannot be sent is reported without its credentials', async () => {
  const url = new URL('http://127.0.0.1:9/admin/keys');
  const headers = { authorization: `Bearer ${SECRET}\ntoken` };
  const error = await send(url, { method: 'GET', headers }).catch((e: Error) => e);
  expect(error).toBeInstanceOf(Error);
  expect((error as Error).message).toContain('cannot reach http://127.0.0.1:9');
  expect((error as Error).message).not.toContain(SECRET);
});
