/**
 * What bounds one publish of skills (docs/skills.md), checked by the CLI before any request: at most
 * 10,000 distinct files (MAX_DIGESTS, what the gateway looks up at once) and 2,000 skills.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { loadSkills } from '../../cli/skills.js';
import { MAX_DIGESTS } from '../../src/catalog/skills/file-store.js';
import {
  MAX_PUBLISH_SKILLS,
  SKILL_LIMITS,
  skillSetLimits,
  validateSkillSet,
} from '../../src/catalog/skills/validate.js';
import type { SkillRecord } from '../../src/catalog/types.js';

/** Valid skills naming `count` distinct files in all, as many to a skill as one may hold. */
function skillsNaming(count: number): SkillRecord[] {
  const skills: SkillRecord[] = [];
  for (let n = 0; n < count; n += SKILL_LIMITS.files) {
    const name = `s${skills.length}`;
    const paths = Array.from({ length: Math.min(SKILL_LIMITS.files, count - n) }, (_, i) =>
      i ? `f${i}.md` : 'SKILL.md',
    );
    const files = paths.map((path, i) => ({
      path,
      digest: `sha256:${(n + i).toString(16).padStart(64, '0')}`,
      size: 1,
    }));
    skills.push({ name, frontmatter: { name, description: 'Holds files.' }, files });
  }
  return skills;
}

it(`a set naming more than ${MAX_DIGESTS} distinct files is refused; one naming ${MAX_DIGESTS} is not`, () => {
  const message = `${MAX_DIGESTS + 1} distinct files; one publish names at most ${MAX_DIGESTS}`;
  expect(skillSetLimits(skillsNaming(MAX_DIGESTS + 1))).toEqual([{ path: 'skills', message }]);
  expect(validateSkillSet(skillsNaming(MAX_DIGESTS + 1))).toEqual([{ path: 'skills', message }]);
  expect(validateSkillSet(skillsNaming(MAX_DIGESTS))).toEqual([]);
});

it(`the CLI checks a directory's skills as one set: ${MAX_PUBLISH_SKILLS + 1} skill folders are an issue`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'pg-set-'));
  try {
    for (let i = 0; i <= MAX_PUBLISH_SKILLS; i++) {
      mkdirSync(join(dir, `s${i}`));
      writeFileSync(join(dir, `s${i}/SKILL.md`), `---\nname: s${i}\ndescription: One of many.\n---\n`);
    }
    const loaded = loadSkills(dir);
    expect(loaded.issues).toEqual([{ path: '', message: `at most ${MAX_PUBLISH_SKILLS} skills` }]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
