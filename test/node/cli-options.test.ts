/**
 * Each command takes only its own options (cli/main.ts): one it would ignore is a usage error
 * (exit 2) and nothing is sent, so `rollback x 3 --dry-run` never rolls back for real, nor
 * `keys revoke <id> --dry-run` revokes. A name that is not one is refused before it becomes a path.
 */
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.js';
import { adminStandIn } from '../helpers/admin-stand-in.js';

const KEY_ID = '3f9c0a61d2b47e85';
const stand = await adminStandIn(({ url }, json) => {
  if (url.startsWith('/admin/keys')) return json(200, { keys: [] });
  json(500, { error: { code: 'internal', message: 'the test expects no request here' } });
});
afterAll(() => stand.close());

/** Runs the CLI in-process against the stand-in; its exit code and what it wrote to stderr. */
async function cli(...args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((stderr += String(s)), true));
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    return { code: await main([...args, '--url', stand.base, '--token', 't']), stderr };
  } finally {
    err.mockRestore();
    out.mockRestore();
  }
}

beforeEach(() => void stand.seen.splice(0));

describe('an option the command does not read', () => {
  it.each([
    [['rollback', 'hello', '3', '--dry-run'], '--dry-run does not apply to rollback'],
    [['keys', 'revoke', KEY_ID, '--dry-run'], '--dry-run does not apply to keys revoke'],
    [['keys', 'create', '--name', 'ci', '--prune'], '--prune does not apply to keys create'],
    [['pull', '/nonexistent-pg-dir', '--replace', '--dry-run'], '--dry-run does not apply to pull'],
    [['history', 'hello', '--json', '--prune'], '--json, --prune does not apply to history'],
    [['keys', 'list', '--name', 'x'], '--name does not apply to keys list'],
  ])('%j is a usage error, and nothing is sent', async (args, message) => {
    const r = await cli(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(stand.seen).toEqual([]);
  });

  it("is still taken where it is the command's own", async () => {
    const r = await cli('keys', 'list');
    expect(r).toEqual({ code: 0, stderr: '' });
    expect(stand.seen).toEqual(['GET /admin/keys']);
  });
});

describe('a name that is not one', () => {
  it.each([
    [['history', '.'], '"." is not a prompt name'],
    [['rollback', '.', '3'], '"." is not a prompt name'],
    [['history', 'Bad_Skill', '--skill'], '"Bad_Skill" is not a skill name'],
  ])('%j is a usage error before any request', async (args, message) => {
    const r = await cli(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(stand.seen).toEqual([]);
  });
});
