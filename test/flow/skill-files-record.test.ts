/**
 * The writer's record of uploaded skill files (skill-files-table.ts) through the admin API: a
 * publish and `files/missing` answer from it, not from a KV read per file (Cloudflare allows
 * 1,000 KV operations per invocation; a set names up to 10,000 files), and a file stored in KV
 * without a record is still found there.
 */
import { env, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { digestOf, fileKey } from '../../src/catalog/skills/file-store.js';
import { ADMIN_BASE, ADMIN_TOKEN, adminFetch as admin, openSession } from '../helpers/worker.js';

const enc = (s: string) => new TextEncoder().encode(s);

async function skillFile(name: string): Promise<{ md: Uint8Array; digest: string }> {
  const md = enc(`---\nname: ${name}\ndescription: Recorded.\n---\n\n# ${name}\n`);
  return { md, digest: await digestOf(md) };
}

async function upload(digest: string, md: Uint8Array): Promise<void> {
  const put = await SELF.fetch(`${ADMIN_BASE}/skills/files/${digest}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/octet-stream' },
    body: md,
  });
  expect(put.status).toBe(200);
}

const record = (name: string, digest: string, size: number) => ({
  name,
  frontmatter: { name, description: 'Recorded.' },
  files: [{ path: 'SKILL.md', digest, size }],
});

const missing = async (digests: string[]) =>
  (await (await admin('POST', '/skills/files/missing', { digests })).json<{ missing: string[] }>()).missing;

describe("the writer's record of uploaded skill files", () => {
  it('a publish and files/missing answer from the record of an upload, not from KV', async () => {
    const { md, digest } = await skillFile('recorded-upload');
    await upload(digest, md);
    // Gone from KV (this namespace) after the upload: only the record can still say it was uploaded.
    await env.PROMPTS.delete(fileKey(digest));
    expect(await missing([digest])).toEqual([]);
    const res = await admin('POST', '/skills/publish', { skills: [record('recorded-upload', digest, md.byteLength)] });
    expect(res.status).toBe(200);
    // Where the bytes have not arrived yet (KV carries them within about a minute), a read says so.
    const uri = 'skill://recorded-upload/SKILL.md';
    const { body } = await (await openSession()).call('resources/read', { uri });
    expect(body.error).toEqual({
      code: -32603,
      message: 'The file is not available here yet; retry shortly',
      data: { uri },
    });
  });

  it('a file in KV with no record is found there, and a file in neither is missing', async () => {
    const { md, digest } = await skillFile('unrecorded-file');
    await env.PROMPTS.put(fileKey(digest), md, { metadata: { size: md.byteLength } });
    const absent = (await skillFile('never-uploaded')).digest;
    expect(await missing([absent, digest])).toEqual([absent]);
    const ok = await admin('POST', '/skills/publish', { skills: [record('unrecorded-file', digest, md.byteLength)] });
    expect(ok.status).toBe(200);
    const refused = await admin('POST', '/skills/publish', { skills: [record('never-uploaded', absent, 10)] });
    expect(refused.status).toBe(422);
    const body = await refused.json<{ error: { issues: { path: string; message: string }[] } }>();
    expect(body.error.issues).toEqual([{ path: absent, message: expect.stringMatching(/^no file with this digest/) }]);
  });
});
