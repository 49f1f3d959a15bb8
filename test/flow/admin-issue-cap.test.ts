/**
 * Bodies built to produce an issue per element: the issues listed are capped (content-checks.ts
 * MAX_ISSUES), so a few megabytes of bad elements get a small 4xx, not an answer (or an RPC from
 * the writer) of tens of megabytes and a 500. And a `name` with no string form is described, not
 * turned into a crash.
 */
import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { storeSkill } from '../helpers/skills.js';
import { ADMIN_BASE, ADMIN_TOKEN, adminFetch as admin } from '../helpers/worker.js';

type Refusal = { error: { code: string; message: string; issues?: { path: string; message: string }[] } };

/** A raw JSON body (too large to build as an object and stringify in a test). */
const raw = (method: string, path: string, body: string) =>
  SELF.fetch(ADMIN_BASE + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body,
  });

/** The answer, checked small, with its capped issues: the first 100, then how many more. */
async function capped(res: Response, status: number, code: string, total: number) {
  const text = await res.text();
  expect(res.status, text.slice(0, 300)).toBe(status);
  expect(text.length).toBeLessThan(64 * 1024);
  const body = JSON.parse(text) as Refusal;
  expect(body.error.code).toBe(code);
  const issues = body.error.issues ?? [];
  expect(issues).toHaveLength(101);
  expect(issues[100]!.message).toBe(`… and ${total - 100} more problems`);
  expect(body.error.message).toContain(`${total} problem(s)`);
  return issues;
}

/** `n` zeros as a JSON list's elements. */
const zeros = (n: number) => `0${',0'.repeat(n - 1)}`;

describe('issues are capped', () => {
  it('a 5 MiB publish of bad messages is a small 422 listing the first 100 and counting the rest', async () => {
    const n = 2_600_000;
    const body = `{"prompts":[{"name":"a","messages":[${zeros(n)}]}]}`;
    expect(body.length).toBeLessThanOrEqual(5 * 1024 * 1024);
    const issues = await capped(await raw('POST', '/publish?dry_run=1', body), 422, 'invalid_prompts', n);
    expect(issues.slice(0, 2)).toEqual([
      { path: 'prompts[0]: messages[0]', message: 'must be an object' },
      { path: 'prompts[0]: messages[1]', message: 'must be an object' },
    ]);
  });
  it('an upload part, a key and a skill publish are capped the same way', async () => {
    const { upload } = await (await admin('POST', '/uploads')).json<{ upload: { id: string } }>();
    const part = `{"prompts":[{"name":"a","messages":[${zeros(10_000)}]}]}`;
    await capped(await raw('POST', `/uploads/${upload.id}/prompts`, part), 422, 'invalid_prompts', 10_000);
    expect((await admin('DELETE', `/uploads/${upload.id}`)).status).toBe(204);

    const key = `{"name":"k","groups":[${zeros(100_000)}]}`;
    const keyIssues = await capped(await raw('POST', '/keys', key), 400, 'invalid_key', 100_001);
    expect(keyIssues[0]).toEqual({ path: 'groups', message: 'at most 64 entries' });

    const files = `{"skills":[{"name":"s","frontmatter":{"name":"s","description":"d"},"files":[${zeros(10_000)}]}]}`;
    const skillIssues = await capped(
      await raw('POST', '/skills/publish?dry_run=1', files),
      422,
      'invalid_skills',
      10_002,
    );
    expect(skillIssues[0]).toEqual({ path: 'skills[0]: files', message: 'at most 512 files per skill' });
  });
});

describe('issues found past the checker', () => {
  it('files whose uploaded size differs from the declared one are listed capped too', async () => {
    const skill = await storeSkill('cap-sizes', 'Sizes.');
    const manifestFile = skill.files[0]!;
    const wrong = Array.from({ length: 200 }, (_, i) => ({ ...manifestFile, path: `f${i}.md`, size: 1 }));
    const res = await admin('POST', '/skills/publish', { skills: [{ ...skill, files: [manifestFile, ...wrong] }] });
    const issues = await capped(res, 422, 'invalid_skills', 200);
    expect(issues[0]!.path).toBe('skills[0]: files[1].size');
  });
});

describe('a name with no string form', () => {
  const odd = { toString: 0 };
  it('PUT /admin/prompts/x with such a name is 400 name_mismatch describing it', async () => {
    const res = await admin('PUT', '/prompts/x', { name: odd, messages: [] });
    expect(res.status).toBe(400);
    const body = await res.json<Refusal>();
    expect(body.error.code).toBe('name_mismatch');
    expect(body.error.message).toBe('Body names {"toString":0} but the URL names "x"');
  });
  it('a skill publish with such a name is 422 invalid_skills', async () => {
    const res = await admin('POST', '/skills/publish?dry_run=1', {
      skills: [{ name: odd, frontmatter: {}, files: [] }],
    });
    expect(res.status).toBe(422);
    const body = await res.json<Refusal>();
    expect(body.error.code).toBe('invalid_skills');
    expect(body.error.issues).toContainEqual({
      path: 'skills[0]: frontmatter.name',
      message: `must equal the skill's folder name {"toString":0}`,
    });
  });
});
