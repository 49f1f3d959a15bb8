/**
 * The per-file cap on skill files (MAX_SKILL_FILE_BYTES), checked by the CLI with the Worker's own
 * rules: a skill folder holding a file over it is named, with both sizes, before anything is sent.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AdminClient } from '../../cli/api.js';
import { pushCommand } from '../../cli/prompt-commands.js';
import { loadSkills } from '../../cli/skills.js';
import { MAX_SKILL_FILE_BYTES } from '../../src/catalog/skills/validate.js';
import { adminStandIn } from '../helpers/admin-stand-in.js';

const stand = await adminStandIn((_, json) =>
  json(500, { error: { code: 'unexpected', message: 'no request expected' } }),
);
const OVER = MAX_SKILL_FILE_BYTES + 1;
const ISSUE = `skills/big: files[1].size`;
const MESSAGE = `big/data/big.bin is ${OVER} bytes; one skill file is at most ${MAX_SKILL_FILE_BYTES} bytes (4 MiB)`;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pg-file-cap-'));
  mkdirSync(join(dir, 'skills/big/data'), { recursive: true });
  writeFileSync(join(dir, 'skills/big/SKILL.md'), '---\nname: big\ndescription: Holds a big file.\n---\n\n# big\n');
  writeFileSync(join(dir, 'skills/big/data/big.bin'), Buffer.alloc(OVER, 1));
  // At the cap exactly: no issue.
  mkdirSync(join(dir, 'skills/fits/data'), { recursive: true });
  writeFileSync(join(dir, 'skills/fits/SKILL.md'), '---\nname: fits\ndescription: Holds a file at the cap.\n---\n');
  writeFileSync(join(dir, 'skills/fits/data/fits.bin'), Buffer.alloc(MAX_SKILL_FILE_BYTES, 1));
});
afterAll(() => {
  stand.close();
  rmSync(dir, { recursive: true, force: true });
});

it('a file over the cap is an issue naming the skill, the file and both sizes; one at the cap is none', () => {
  const loaded = loadSkills(dir);
  expect(loaded.issues).toEqual([{ path: ISSUE, message: MESSAGE }]);
  expect(loaded.records.map((r) => r.name)).toEqual(['fits']);
});

it('push stops on it before any request', async () => {
  const api = new AdminClient(stand.base, 'test-token');
  await expect(
    pushCommand(
      () => api,
      dir,
      {},
      () => {},
    ),
  ).rejects.toThrow(`${dir}/${ISSUE}: ${MESSAGE}`);
  expect(stand.seen).toEqual([]);
});
