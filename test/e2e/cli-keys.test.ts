/**
 * `promptgate keys create|list|revoke` against a real `wrangler dev`: the
 * secret is printed once with a warning, never listed, revocation shows at
 * once; bad input is a clear error; history says who published.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startGateway, type Gateway } from '../helpers/wrangler-dev.js';

let gw: Gateway;

const cli = (...args: string[]) => runCli(gw, ...args);

beforeAll(async () => {
  gw = await startGateway();
});

afterAll(async () => {
  await gw?.stop();
});

describe('promptgate keys', () => {
  it('create prints the key once with a warning; list shows it without the secret; revoke lands at once', async () => {
    const made = await cli(
      'keys',
      'create',
      '--name',
      'ci-bot',
      '--group',
      'team-a',
      '--group',
      'team-b',
      '--expires-in-days',
      '7',
    );
    expect(made.code, made.stderr).toBe(0);
    const key = /\b(pg_[A-Za-z0-9_-]{43})\b/.exec(made.stdout)?.[1];
    expect(key).toBeDefined();
    expect(made.stdout).toMatch(/shown only once/);
    const id = /created key (\S+) \(ci-bot\), expires /.exec(made.stdout)?.[1];
    expect(id).toBeDefined();

    const admin = await cli('keys', 'create', '--name', 'ops', '--admin', '--scope', 'prompts:read');
    expect(admin.code, admin.stderr).toBe(0);

    const listed = await cli('keys', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).not.toContain(key!);
    expect(listed.stdout).not.toContain(key!.slice(3));
    const lines = listed.stdout.split('\n');
    expect(lines[0]).toMatch(/^\s+ID\s+NAME\s+GROUPS\s+SCOPES\s+ADMIN\s+CREATED\s+BY\s+EXPIRES\s+STATUS$/);
    const row = lines.find((l) => l.includes(id!))!;
    expect(row).toMatch(/ci-bot\s+team-a,team-b\s+\(read\)\s+no\s+\d{4}-\d\d-\d\d\s+admin\s+\d{4}-\d\d-\d\d\s+active$/);
    expect(lines.find((l) => l.includes(' ops '))).toMatch(/prompts:read\s+yes\s.*active$/);

    const revoked = await cli('keys', 'revoke', id!);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`revoked key ${id} \\(ci-bot\\) at \\d{4}-`));
    expect((await cli('keys', 'list')).stdout.split('\n').find((l) => l.includes(id!))).toMatch(/revoked$/);
    // Idempotent.
    expect((await cli('keys', 'revoke', id!)).code).toBe(0);
  });

  it('bad input: clear errors, exit 1 from the gateway and 2 for usage', async () => {
    const badName = await cli('keys', 'create', '--name', 'has space');
    expect(badName.code).toBe(1);
    expect(badName.stderr).toMatch(/HTTP 400.*\n\s+name: /);
    const badGroup = await cli('keys', 'create', '--name', 'ok', '--group', 'no spaces allowed');
    expect(badGroup.code).toBe(1);
    expect(badGroup.stderr).toMatch(/groups\[0\]: must match/);
    const unknown = await cli('keys', 'revoke', '0123456789abcdef');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/HTTP 404/);
    // Not a key id, or the key itself: refused before any request, the key never printed back.
    expect((await cli('keys', 'revoke', 'no-such-key')).stderr).toMatch(/16 hex digits/);
    const pasted = `pg_${'A'.repeat(43)}`;
    const secret = await cli('keys', 'revoke', pasted);
    expect(secret.code).toBe(2);
    expect(secret.stderr).toContain('the key itself, not its id');
    expect(secret.stderr + secret.stdout).not.toContain(pasted);
    for (const args of [
      ['keys'],
      ['keys', 'create'],
      ['keys', 'revoke'],
      ['keys', 'revoke', 'no-such-key'],
      ['keys', 'create', '--name', 'x', '--expires-in-days', 'soon'],
    ]) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).toBe(2);
    }
    expect((await cli('keys', 'list')).stdout).not.toMatch(/\bok\b/);
  });

  it('history says who published each version', async () => {
    const h = await cli('history', 'summarize');
    expect(h.code, h.stderr).toBe(0);
    expect(h.stdout).toMatch(/v1 .* by admin/);
  });
});
