/**
 * Each command takes only its own options (cli/main.ts): one it would ignore is a usage error
 * (exit 2) and nothing is sent, so `rollback x 3 --dry-run` never rolls back for real, nor
 * `keys revoke <id> --dry-run` revokes. A name that is not one is refused before it becomes a path.
 */
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.js';
import { adminStandIn, EMPTY_DIFF } from '../helpers/admin-stand-in.js';

const KEY_ID = '3f9c0a61d2b47e85';
/** The versions the stand-in was asked to roll `hello` back to. */
const rolledBackTo: number[] = [];
const stand = await adminStandIn(({ url, body }, json) => {
  if (url.startsWith('/admin/keys')) return json(200, { keys: [] });
  if (url === '/admin/prompts/hello/rollback') {
    const { version } = JSON.parse(body) as { version: number };
    rolledBackTo.push(version);
    return json(200, {
      ok: true,
      generation: 2,
      diff: { ...EMPTY_DIFF, changed: ['hello'] },
      versions: { hello: version + 10 },
    });
  }
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

beforeEach(() => {
  stand.seen.splice(0);
  rolledBackTo.splice(0);
});

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

describe('a rollback version', () => {
  it.each(['1e1', '0x3', '3.0', '+3', ' 3', '3 ', '0', '00', 'three', '', '9007199254740993'])(
    '%j is a usage error before any request',
    async (version) => {
      const r = await cli('rollback', 'hello', version);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('version must be a positive integer (digits only)');
      expect(stand.seen).toEqual([]);
    },
  );

  it.each([
    ['3', 3],
    ['03', 3],
    ['12', 12],
  ])('%j is version %d', async (given, version) => {
    const r = await cli('rollback', 'hello', given);
    expect(r).toEqual({ code: 0, stderr: '' });
    expect(stand.seen).toEqual(['POST /admin/prompts/hello/rollback']);
    expect(rolledBackTo).toEqual([version]);
  });
});
