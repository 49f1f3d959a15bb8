/**
 * The per-file cap on skill files (MAX_SKILL_FILE_BYTES, docs/skills.md): an upload over it is 413,
 * a publish naming a file over it is 422 naming the skill, the file and both sizes, and a file
 * stored over it by an older gateway is refused by resources/read from its recorded size, unread,
 * rather than held several times over in an isolate every request shares.
 */
import { env, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { digestOf, fileKey } from '../../src/catalog/skills/file-store.js';
import { MAX_SKILL_FILE_BYTES } from '../../src/catalog/skills/validate.js';
import { readGeneration } from '../../src/catalog/store.js';
import { seedSkills, storeSkill } from '../helpers/skills.js';
import { ADMIN_BASE, ADMIN_TOKEN, adminFetch as admin, openSession } from '../helpers/worker.js';

const enc = (s: string) => new TextEncoder().encode(s);
const OVER = MAX_SKILL_FILE_BYTES + 1;

function upload(digest: string, body: BodyInit): Promise<Response> {
  return SELF.fetch(`${ADMIN_BASE}/skills/files/${digest}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/octet-stream' },
    body,
  });
}

/** `bytes` as a body of unknown length: read up to the cap, not refused by its header. */
const streamed = (bytes: Uint8Array) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < bytes.length; i += 1 << 20) c.enqueue(bytes.slice(i, i + (1 << 20)));
      c.close();
    },
  });

describe('upload', () => {
  it('a file over the cap is 413 naming the limit, with or without its length; one at the cap is stored', async () => {
    const over = new Uint8Array(OVER).fill(7);
    const digest = await digestOf(over);
    for (const body of [over, streamed(over)]) {
      const res = await upload(digest, body);
      expect(res.status).toBe(413);
      expect(await res.json()).toMatchObject({
        error: { code: 'too_large', message: `A skill file is at most ${MAX_SKILL_FILE_BYTES} bytes (4 MiB)` },
      });
    }
    expect(await env.PROMPTS.get(fileKey(digest), 'stream')).toBeNull();
    const at = over.subarray(0, MAX_SKILL_FILE_BYTES);
    const ok = await upload(await digestOf(at), at);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ digest: await digestOf(at), size: MAX_SKILL_FILE_BYTES });
  });
});

describe('publish', () => {
  it('a skill naming a file over the cap is 422 naming the skill, the file and both sizes; nothing is published', async () => {
    const md = enc('---\nname: over-cap\ndescription: Too big.\n---\n# over-cap\n');
    expect((await upload(await digestOf(md), md)).status).toBe(200);
    const skill = {
      name: 'over-cap',
      frontmatter: { name: 'over-cap', description: 'Too big.' },
      files: [
        { path: 'SKILL.md', digest: await digestOf(md), size: md.byteLength },
        { path: 'data/big.bin', digest: `sha256:${'b'.repeat(64)}`, size: OVER },
      ],
    };
    const before = await readGeneration(env.PROMPTS);
    for (const query of ['', '?dry_run=1']) {
      const res = await admin('POST', `/skills/publish${query}`, { skills: [skill] });
      expect(res.status, query).toBe(422);
      expect(((await res.json()) as any).error.issues, query).toEqual([
        {
          path: 'skills[0]: files[1].size',
          message: `over-cap/data/big.bin is ${OVER} bytes; one skill file is at most ${MAX_SKILL_FILE_BYTES} bytes (4 MiB)`,
        },
      ]);
    }
    expect(await readGeneration(env.PROMPTS)).toBe(before);
    expect((await admin('GET', '/skills/over-cap')).status).toBe(404);
  });
});

describe('resources/read', () => {
  it('a stored file over the cap is a clear error with its size and the cap, its bytes never read', async () => {
    // As an older gateway stored it: the bytes in KV by digest, the record in the snapshot.
    const skill = await storeSkill('stored-big', 'Published before the cap', [
      { path: 'data/big.bin', content: new Uint8Array(OVER).fill(1) },
    ]);
    // A file whose bytes this location does not hold: read, it would be "not available here yet".
    const unread = { path: 'data/absent.bin', digest: `sha256:${'c'.repeat(64)}`, size: OVER + 1 };
    await seedSkills([{ ...skill, files: [...skill.files, unread] }]);
    const s = await openSession();
    for (const [path, size] of [
      ['data/big.bin', OVER],
      ['data/absent.bin', OVER + 1],
    ] as const) {
      const uri = `skill://stored-big/${path}`;
      const { status, body } = await s.call('resources/read', { uri });
      expect(status).toBe(200);
      expect(body.error).toEqual({
        code: -32603,
        message: `The file is ${size} bytes; resources/read serves skill files of at most ${MAX_SKILL_FILE_BYTES} bytes (4 MiB)`,
        data: { uri, size, limit: MAX_SKILL_FILE_BYTES },
      });
    }
    // Files under the cap of the same skill are served as ever.
    const ok = await s.call('resources/read', { uri: 'skill://stored-big/SKILL.md' });
    expect(ok.body.result.contents[0].text).toContain('name: stored-big');
  });
});
