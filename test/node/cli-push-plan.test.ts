/**
 * Every push, `promptgate push` and `npm start`'s pushDir alike (cli/push.ts), plans the prompt
 * set before it publishes a skill record: a set the gateway refuses stops the push with nothing
 * published. And a prompt publish refused after the skills went out (the plan cannot see what
 * their publish adds) says that the skills were published and the prompts were not.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AdminClient } from '../../cli/api.js';
import { pushCommand } from '../../cli/prompt-commands.js';
import { pushDir } from '../../cli/push.js';
import { adminStandIn, EMPTY_DIFF } from '../helpers/admin-stand-in.js';

const TOKEN = 'test-token';
/** Requests (method and path, up to the query) answered 413 catalog_too_large. */
let tooLarge: string[] = [];
/** Requests answered 503 unavailable, as one whose writer restarted after recording it is. */
let unavailable: string[] = [];

const stand = await adminStandIn(({ method, url }, json) => {
  if (unavailable.includes(`${method} ${url}`))
    return json(503, { error: { code: 'unavailable', message: 'The catalog writer restarted; safe to repeat' } });
  if (tooLarge.includes(`${method} ${url}`))
    return json(413, { error: { code: 'catalog_too_large', message: 'The catalog would be about 13000000 bytes' } });
  if (url.startsWith('/admin/skills/publish'))
    return json(200, { ok: true, generation: 7, diff: { ...EMPTY_DIFF, added: ['notes'] }, versions: { notes: 1 } });
  if (url.startsWith('/admin/publish'))
    return json(200, { ok: true, generation: 8, diff: { ...EMPTY_DIFF, added: ['p'] }, versions: { p: 1 } });
});
const { seen, base } = stand;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pg-push-plan-'));
  writeFileSync(join(dir, 'p.md'), '---\nname: p\n---\n## user\nhi\n');
  mkdirSync(join(dir, 'skills/notes'), { recursive: true });
  writeFileSync(join(dir, 'skills/notes/SKILL.md'), '---\nname: notes\ndescription: Writes notes.\n---\n\n# notes\n');
});
afterAll(() => {
  stand.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  seen.length = 0;
  tooLarge = [];
  unavailable = [];
});

const pushes = {
  'promptgate push': () =>
    pushCommand(
      () => new AdminClient(base, TOKEN),
      dir,
      { prune: true },
      () => {},
    ),
  pushDir: () => pushDir(base, TOKEN, dir),
};
const writes = () => seen.filter((s) => !s.startsWith('PUT /admin/skills/files/') && !s.includes('/files/missing'));

describe.each(Object.entries(pushes))('%s', (_, push) => {
  it('plans the prompts, then publishes the skills, then the prompts', async () => {
    await push();
    expect(writes()).toEqual([
      'POST /admin/publish?dry_run=1&prune=1',
      'POST /admin/skills/publish?prune=1',
      'POST /admin/publish?prune=1',
    ]);
  });

  it('stops before any skill record is published when the prompt plan is refused', async () => {
    tooLarge = ['POST /admin/publish?dry_run=1&prune=1'];
    await expect(push()).rejects.toThrow('failed (HTTP 413): The catalog would be about 13000000 bytes');
    expect(writes()).toEqual(['POST /admin/publish?dry_run=1&prune=1']);
  });

  it('says the skills were published and the prompts not when the prompt publish is refused after them', async () => {
    tooLarge = ['POST /admin/publish?prune=1'];
    const error = (await push().catch((e: Error) => e)) as Error;
    expect(error.message).toContain('POST /admin/publish?prune=1 failed (HTTP 413)');
    expect(error.message).toContain(
      'The skills were published (generation 7: 1 change(s)); the prompts were not: push again once the cause is fixed',
    );
  });

  it('says the prompts may have been recorded when their publish is answered 503 after the skills', async () => {
    unavailable = ['POST /admin/publish?prune=1'];
    const error = (await push().catch((e: Error) => e)) as Error;
    expect(error.message).toContain('POST /admin/publish?prune=1 failed (HTTP 503)');
    expect(error.message).toContain('The skills were published (generation 7: 1 change(s)); the prompts may have been');
    expect(error.message).not.toContain('the prompts were not');
  });
});
