/**
 * The order of a push's requests, against a real local stand-in for the admin API. A prompt upload
 * expires an hour after it is opened, and skill files go one request each (rate-limited): uploaded
 * inside that hour, they could outlast it, and the skills be published with the prompts then lost.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AdminClient } from '../../cli/api.js';
import { PART_PROMPTS } from '../../cli/parts.js';
import { pushCommand } from '../../cli/prompt-commands.js';
import { adminStandIn, EMPTY_DIFF } from '../helpers/admin-stand-in.js';

const stand = await adminStandIn(({ method, url }, json) => {
  if (url === '/admin/uploads') return json(201, { upload: { id: 'up-1' } });
  if (url === '/admin/uploads/up-1/prompts') return json(200, { upload: { id: 'up-1' } });
  if (method === 'DELETE') return json(200, { deleted: 'up-1' });
  if (url.includes('/publish'))
    return json(200, { ok: true, generation: 2, diff: { ...EMPTY_DIFF, added: ['p_0'] }, versions: { p_0: 1 } });
});
const { seen } = stand;

let api: AdminClient;
let dir: string;
beforeAll(() => {
  api = new AdminClient(stand.base, 'test-token');
  // A set that goes in parts (so through an upload), and a skill with two files.
  dir = mkdtempSync(join(tmpdir(), 'pg-push-'));
  for (let i = 0; i <= PART_PROMPTS; i++)
    writeFileSync(join(dir, `p_${i}.md`), `---\nname: p_${i}\n---\n## user\nprompt ${i}\n`);
  mkdirSync(join(dir, 'skills/notes/references'), { recursive: true });
  writeFileSync(join(dir, 'skills/notes/SKILL.md'), '---\nname: notes\ndescription: Writes notes.\n---\n\n# notes\n');
  writeFileSync(join(dir, 'skills/notes/references/STYLE.md'), 'style guide');
});
afterAll(() => {
  stand.close();
  rmSync(dir, { recursive: true, force: true });
});

it('uploads the skill files before it opens the prompt upload, and publishes skills, then prompts', async () => {
  await pushCommand(
    () => api,
    dir,
    {},
    () => {},
  );
  const at = (request: string) => seen.findIndex((s) => s.startsWith(request));
  const puts = seen.flatMap((s, i) => (s.startsWith('PUT /admin/skills/files/') ? [i] : []));
  expect(puts).toHaveLength(2);
  expect(Math.max(...puts)).toBeLessThan(at('POST /admin/uploads'));
  expect(seen.slice(at('POST /admin/uploads'))).toEqual([
    'POST /admin/uploads',
    'POST /admin/uploads/up-1/prompts',
    'POST /admin/uploads/up-1/prompts',
    'POST /admin/uploads/up-1/publish?dry_run=1',
    'POST /admin/skills/publish',
    'POST /admin/uploads/up-1/publish',
    'DELETE /admin/uploads/up-1',
  ]);
});
