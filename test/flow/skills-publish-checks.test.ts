/**
 * What a skills publish checks beyond each record's shape (docs/skills.md): every declared size
 * against the bytes uploaded under its digest (the 16 MiB limit and resources/list trust it), a
 * record small enough for one row of the writer's history, and at most MAX_DIGESTS distinct files,
 * each looked up in the writer's record of uploads. Every refusal is a 422 that writes nothing, never a 500.
 */
import { env, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { MAX_ISSUES } from '../../src/catalog/issues.js';
import { digestOf, fileKey, MAX_DIGESTS, storedSizes } from '../../src/catalog/skills/file-store.js';
import { publishableSkills } from '../../src/catalog/skills/publishable.js';
import { MAX_SKILL_FILE_BYTES } from '../../src/catalog/skills/validate.js';
import { readGeneration } from '../../src/catalog/store.js';
import type { SkillRecord } from '../../src/catalog/types.js';
import { ADMIN_BASE, ADMIN_TOKEN, adminFetch as admin } from '../helpers/worker.js';

const enc = (s: string) => new TextEncoder().encode(s);

/** A one-file skill whose SKILL.md was uploaded as a client uploads it. */
async function uploaded(name: string): Promise<SkillRecord> {
  const md = enc(`---\nname: ${name}\ndescription: Checked.\n---\n\n# ${name}\n`);
  const digest = await digestOf(md);
  const put = await SELF.fetch(`${ADMIN_BASE}/skills/files/${digest}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/octet-stream' },
    body: md,
  });
  expect(put.status).toBe(200);
  return {
    name,
    frontmatter: { name, description: 'Checked.' },
    files: [{ path: 'SKILL.md', digest, size: md.byteLength }],
  };
}

/** Publishes `skills`, expecting a 422 that wrote nothing; its issues. */
async function refused(skills: unknown[], query = ''): Promise<{ path: string; message: string }[]> {
  const before = await readGeneration(env.PROMPTS);
  const res = await admin('POST', `/skills/publish${query}`, { skills });
  expect(res.status).toBe(422);
  const body = await res.json<{ error: { code: string; issues: { path: string; message: string }[] } }>();
  expect(body.error.code).toBe('invalid_skills');
  expect(await readGeneration(env.PROMPTS)).toBe(before);
  return body.error.issues;
}

describe('declared sizes', () => {
  it('a size other than the uploaded bytes is 422 naming the file; nothing is published', async () => {
    const skill = await uploaded('sized-wrong');
    const real = skill.files[0]!.size;
    // Kept beside the bytes at upload, so a publish compares sizes without reading any file.
    const stored = await env.PROMPTS.getWithMetadata(fileKey(skill.files[0]!.digest), 'stream');
    await stored.value?.cancel();
    expect(stored.metadata).toEqual({ size: real });
    // The largest a file may declare: over it, the record itself is invalid (skills-file-cap.test.ts).
    for (const size of [real + 1, 0, MAX_SKILL_FILE_BYTES]) {
      const issues = await refused([{ ...skill, files: [{ ...skill.files[0]!, size }] }]);
      expect(issues).toEqual([
        {
          path: 'skills[0]: files[0].size',
          message: `sized-wrong/SKILL.md declares ${size} bytes; the file uploaded with its digest is ${real} bytes`,
        },
      ]);
    }
    expect((await admin('GET', '/skills/sized-wrong')).status).toBe(404);
    expect((await admin('POST', '/skills/publish', { skills: [skill] })).status).toBe(200);
  });

  it('is checked for a file stored before sizes were kept beside it, by counting its bytes once', async () => {
    const md = enc('---\nname: sized-legacy\ndescription: Stored long ago.\n---\n');
    const digest = await digestOf(md);
    await env.PROMPTS.put(fileKey(digest), md);
    const file = { path: 'SKILL.md', digest, size: md.byteLength };
    const skill = { name: 'sized-legacy', frontmatter: { name: 'sized-legacy', description: 'Stored long ago.' } };
    const issues = await refused([{ ...skill, files: [{ ...file, size: 3 }] }]);
    expect(issues.map((i) => i.path)).toEqual(['skills[0]: files[0].size']);
    // Counted, then stored again with the size beside the same bytes: the next publish reads no file.
    const stored = await env.PROMPTS.getWithMetadata(fileKey(digest), 'arrayBuffer');
    expect(stored.metadata).toEqual({ size: md.byteLength });
    expect(new Uint8Array(stored.value!)).toEqual(md);
    expect((await admin('POST', '/skills/publish', { skills: [{ ...skill, files: [file] }] })).status).toBe(200);
  });
});

describe('bounds', () => {
  it('a record too large for one history row is 422 with its size, not a 500 from the write', async () => {
    const skill = { ...(await uploaded('huge-record')), extra: 'x'.repeat(3_000_000) };
    const issues = await refused([skill]);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.message).toMatch(/^is \d+ bytes as JSON; a skill record is at most 1900000 bytes$/);
    expect((await admin('GET', '/skills/huge-record')).status).toBe(404);
  });

  it(`a publish naming more than ${MAX_DIGESTS} distinct files is refused before any is looked up`, async () => {
    const hex = (n: number) => n.toString(16).padStart(64, '0');
    const skills = Array.from({ length: Math.ceil((MAX_DIGESTS + 1) / 511) }, (_, s) => {
      const name = `many-files-${s}`;
      const files = Array.from({ length: 511 }, (_, f) => ({
        path: `f${f}`,
        digest: `sha256:${hex(s * 511 + f)}`,
        size: 1,
      }));
      return {
        name,
        frontmatter: { name, description: 'Many.' },
        files: [...files, { path: 'SKILL.md', digest: `sha256:${hex(1e9 + s)}`, size: 1 }],
      };
    });
    for (const query of ['', '?dry_run=1']) {
      const issues = await refused(skills, query);
      expect(issues, query).toEqual([
        { path: 'skills', message: `${skills.length * 512} distinct files; one publish names at most ${MAX_DIGESTS}` },
      ]);
    }
  });

  it(`the writer's own list of missing files and wrong sizes holds ${MAX_ISSUES} and counts the rest`, async () => {
    // Up to 10,000 missing digests, or 500 × 512 wrong sizes, go back from the writer in one RPC.
    const hex = (n: number) => n.toString(16).padStart(64, 'e');
    const missing = Array.from({ length: 150 }, (_, f) => ({ path: `f${f}`, digest: `sha256:${hex(f)}`, size: 1 }));
    const skill = await uploaded('many-problems');
    const md = skill.files[0]!;
    const wrong = Array.from({ length: 150 }, (_, f) => ({ ...md, path: `w${f}`, size: md.size + 1 }));
    for (const [files, first] of [
      [missing, { path: missing[0]!.digest, message: expect.stringMatching(/^no file with this digest/) }],
      [wrong, { path: 'skills[0]: files[1].size', message: expect.stringMatching(/declares/) }],
    ] as const) {
      const sizesOf = async (d: string[]) => ({ sizes: await storedSizes(env.PROMPTS, d), unchecked: [] });
      const checked = await publishableSkills(sizesOf, [{ ...skill, files: [md, ...files] }], false);
      if (checked.ok) throw new Error('published');
      expect(checked.issues).toHaveLength(MAX_ISSUES + 1);
      expect(checked.issues[0]).toEqual(first);
      expect(checked.issues.at(-1)).toEqual({ path: '', message: '… and 50 more problems' });
    }
  });
});
