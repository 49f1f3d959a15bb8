/**
 * How many skills one publish may carry (docs/skills.md): as many as prompts, so that `push` can
 * send a directory of that many skills in its one skills request. One more is refused whole
 * (413 too_many) before the writer is asked; a dry run of the most is answered, since it checks no
 * file. The CLI's local check (validateSkillSet) draws the same line.
 */
import { expect, it } from 'vitest';
import { MAX_PUBLISH_SKILLS, validateSkillSet } from '../../src/catalog/skills/validate.js';
import { MAX_PUBLISH_PROMPTS } from '../../src/routes/admin-json.js';
import { adminFetch as admin } from '../helpers/worker.js';

const DIGEST = `sha256:${'a'.repeat(64)}`;
const skill = (i: number) => {
  const name = `cap-${i}`;
  return {
    name,
    frontmatter: { name, description: `skill ${i}` },
    files: [{ path: 'SKILL.md', digest: DIGEST, size: 10, mimeType: 'text/markdown' }],
  };
};
const skills = (n: number) => Array.from({ length: n }, (_, i) => skill(i));

it('takes a dry run of as many skills as a publish takes prompts, and refuses one more whole', async () => {
  const most = await admin('POST', '/skills/publish?dry_run=1', { skills: skills(MAX_PUBLISH_PROMPTS) });
  const body = await most.json<{ diff: { added: string[] } }>();
  expect(most.status, JSON.stringify(body).slice(0, 300)).toBe(200);
  expect(body.diff.added).toHaveLength(MAX_PUBLISH_PROMPTS);
  expect(MAX_PUBLISH_SKILLS).toBe(MAX_PUBLISH_PROMPTS);

  const over = await admin('POST', '/skills/publish?dry_run=1', { skills: skills(MAX_PUBLISH_SKILLS + 1) });
  expect(over.status).toBe(413);
  const { error } = await over.json<{ error: { code: string; message: string } }>();
  expect(error.code).toBe('too_many');
  expect(error.message).toContain(`At most ${MAX_PUBLISH_SKILLS} skills per publish`);
});

it('is the line the CLI checks a directory against before sending anything', () => {
  expect(validateSkillSet(skills(MAX_PUBLISH_SKILLS))).toEqual([]);
  expect(validateSkillSet(skills(MAX_PUBLISH_SKILLS + 1))).toEqual([
    { path: 'skills', message: `at most ${MAX_PUBLISH_SKILLS} skills` },
  ]);
});
