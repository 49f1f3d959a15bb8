/**
 * Files far over a limit (docs/skills.md, docs/prompt-files.md): a skill file, a SKILL.md, a prompt
 * file and a prompt's asset, each a 3 GiB sparse file, are issues naming the file and both sizes,
 * looked at by size alone: reading one would fail in Node (over 2 GiB, naming no file) or fill memory.
 */
import { closeSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { loadPromptDir } from '../../cli/fs-source.js';
import { loadSkills } from '../../cli/skills.js';
import { MAX_SKILL_FILE_BYTES } from '../../src/catalog/skills/validate.js';
import { MAX_PROMPT_BYTES } from '../../src/catalog/validate.js';

const HUGE = 3 * 2 ** 30;
const SKILL_CAP = `one skill file is at most ${MAX_SKILL_FILE_BYTES} bytes (4 MiB)`;
const PROMPT_CAP = `a prompt file or one it reads is at most ${MAX_PROMPT_BYTES} bytes, the most a prompt record may be`;

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A directory with these text files, and a 3 GiB file at each of `huge` whose bytes are never written. */
function tree(files: Record<string, string>, huge: string[]): string {
  dir = mkdtempSync(join(tmpdir(), 'pg-sparse-'));
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
  for (const p of huge) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    const fd = openSync(join(dir, p), 'w');
    ftruncateSync(fd, HUGE);
    closeSync(fd);
  }
  return dir;
}

const skillMd = (name: string) => `---\nname: ${name}\ndescription: Holds a file.\n---\n`;

it('a 3 GiB skill file, or SKILL.md, is an issue naming it and both sizes, not a throw', () => {
  tree({ 'skills/big/SKILL.md': skillMd('big'), 'skills/fits/SKILL.md': skillMd('fits') }, [
    'skills/big/data/huge.bin',
    'skills/vast/SKILL.md',
  ]);
  const loaded = loadSkills(dir);
  expect(loaded.issues).toEqual([
    { path: 'skills/big: files[1].size', message: `big/data/huge.bin is ${HUGE} bytes; ${SKILL_CAP}` },
    { path: 'skills/vast: files[0].size', message: `vast/SKILL.md is ${HUGE} bytes; ${SKILL_CAP}` },
  ]);
  expect(loaded.records.map((r) => r.name)).toEqual(['fits']);
});

it('a 3 GiB prompt file, or asset a prompt reads, is an issue naming it and both sizes, not a throw', () => {
  const image = '---\nname: pic\n---\n\n## user\n\n```image\nfile: assets/huge.png\n```\n';
  tree({ 'pic.md': image, 'ok.md': '---\nname: ok\n---\n\n## user\n\nhello\n' }, ['huge.md', 'assets/huge.png']);
  const loaded = loadPromptDir(dir);
  expect(loaded.issues).toEqual([
    { path: 'huge.md', message: `is ${HUGE} bytes; ${PROMPT_CAP}` },
    { path: 'pic.md', message: `assets/huge.png is ${HUGE} bytes; ${PROMPT_CAP}` },
  ]);
  expect(loaded.records.map((r) => r.name)).toEqual(['ok']);
});
