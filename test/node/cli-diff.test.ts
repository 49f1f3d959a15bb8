/**
 * `promptgate diff` against a local stand-in for the admin API: its exit code, which with
 * `--exit-code` says whether the directory differs from what is published (as `git diff --exit-code`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.js';
import { adminStandIn, EMPTY_DIFF } from '../helpers/admin-stand-in.js';

const hello = { name: 'hello', messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] };
/** What the stand-in has published: `hello`, with the text `published`. */
let published = 'hi';

const stand = await adminStandIn(({ method, url, body }, json) => {
  if (method === 'GET' && url === '/admin/prompts') {
    const record = { ...hello, messages: [{ ...hello.messages[0], content: { type: 'text', text: published } }] };
    return json(200, { prompts: [{ ...record, _version: 1, _updatedAt: '2026-11-01T00:00:00Z' }], generation: 1 });
  }
  if (method === 'GET' && url === '/admin/skills') return json(200, { skills: [], generation: 1 });
  if (url === '/admin/publish?dry_run=1&prune=1') {
    const [local] = (JSON.parse(body) as { prompts: { messages: { content: { text: string } }[] }[] }).prompts;
    const same = local!.messages[0]!.content.text === published;
    return json(200, {
      ok: true,
      generation: 1,
      diff: { ...EMPTY_DIFF, [same ? 'unchanged' : 'changed']: ['hello'] },
      versions: {},
    });
  }
  if (url === '/admin/skills/publish?dry_run=1&prune=1')
    return json(200, { ok: true, generation: 1, diff: EMPTY_DIFF, versions: {} });
});
const dir = mkdtempSync(join(tmpdir(), 'pg-diff-'));
writeFileSync(join(dir, 'hello.md'), '---\nname: hello\n---\n## user\nhi\n');
afterAll(() => {
  stand.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the CLI in-process against the stand-in: its exit code and what it wrote. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((stderr += String(s)), true));
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((stdout += String(s)), true));
  try {
    return { code: await main([...args, '--url', stand.base, '--token', 't']), stdout, stderr };
  } finally {
    err.mockRestore();
    out.mockRestore();
  }
}

describe('diff', () => {
  it('exits 0 whether or not there are differences, without --exit-code', async () => {
    published = 'hi';
    expect(await cli('diff', dir)).toMatchObject({ code: 0, stdout: expect.stringContaining('no differences') });
    published = 'hello';
    const r = await cli('diff', dir);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toContain('~ hello');
  });

  it('with --exit-code, exits 1 when there are differences and 0 when there are none', async () => {
    published = 'hello';
    const changed = await cli('diff', dir, '--exit-code');
    expect(changed).toMatchObject({ code: 1, stderr: '' });
    expect(changed.stdout).toContain('hello: messages[0].content.text');
    published = 'hi';
    expect(await cli('diff', '--exit-code', dir)).toEqual({ code: 0, stdout: 'no differences\n', stderr: '' });
  });

  it('--exit-code is an option of diff only', async () => {
    const r = await cli('validate', dir, '--exit-code');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--exit-code does not apply to validate');
  });
});
