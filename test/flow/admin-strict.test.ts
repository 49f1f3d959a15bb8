/**
 * What the admin API refuses before anything is written: a query parameter a single write does
 * not take (an ignored `?dry_run=1` would write for real), base64 that is not canonical (pull
 * decodes it to a file and push encodes it again), and a resource link whose title or
 * description is not a string (shaped into text for 2025-03-26 clients).
 */
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { readGeneration } from '../../src/catalog/store.js';
import { storeSkill } from '../helpers/skills.js';
import { adminFetch as admin } from '../helpers/worker.js';

const prompt = (content: Record<string, unknown>) => ({ messages: [{ role: 'user', content }] });
const hello = prompt({ type: 'text', text: 'Hi!' });

async function refused(res: Response, code: string): Promise<{ path: string; message: string }[]> {
  const body = await res.json<{ error: { code: string; issues?: { path: string; message: string }[] } }>();
  expect(body.error.code, JSON.stringify(body)).toBe(code);
  return body.error.issues ?? [];
}

describe('single writes take no query', () => {
  it('DELETE, PUT and rollback with ?dry_run=1 are 400 invalid_query and write nothing', async () => {
    expect((await admin('PUT', '/prompts/hello', hello)).status).toBe(200);
    expect((await admin('PUT', '/prompts/hello', prompt({ type: 'text', text: 'Hi again' }))).status).toBe(200);
    const skill = await storeSkill('strict-query', 'Kept.');
    expect((await admin('POST', '/skills/publish', { skills: [skill] })).status).toBe(200);
    const before = await readGeneration(env.PROMPTS);
    for (const [method, path, body] of [
      ['DELETE', '/prompts/hello?dry_run=1'],
      ['PUT', '/prompts/hello?dry_run=1', hello],
      ['POST', '/prompts/hello/rollback?dry_run=1', { version: 1 }],
      ['DELETE', '/skills/strict-query?dry_run=1'],
      ['POST', '/skills/strict-query/rollback?dry_run', { version: 1 }],
    ] as const) {
      const res = await admin(method, path, body);
      expect(res.status, path).toBe(400);
      await refused(res, 'invalid_query');
    }
    expect(await readGeneration(env.PROMPTS)).toBe(before);
    const now = await (await admin('GET', '/prompts/hello')).json<{ version: number }>();
    expect(now.version).toBe(2);
    expect((await admin('GET', '/skills/strict-query')).status).toBe(200);
  });
  it('key writes take no query either: nothing is created or revoked', async () => {
    const before = (await (await admin('GET', '/keys')).json<{ keys: unknown[] }>()).keys.length;
    const created = await admin('POST', '/keys?dry_run=1', { name: 'strict' });
    expect(created.status).toBe(400);
    await refused(created, 'invalid_query');
    expect((await (await admin('GET', '/keys')).json<{ keys: unknown[] }>()).keys).toHaveLength(before);
    const key = await (await admin('POST', '/keys', { name: 'strict' })).json<{ id: string }>();
    const revoked = await admin('DELETE', `/keys/${key.id}?dry_run=1`);
    expect(revoked.status).toBe(400);
    await refused(revoked, 'invalid_query');
    const listed = (await (await admin('GET', '/keys')).json<{ keys: { id: string; revokedAt: string | null }[] }>())
      .keys;
    expect(listed.find((k) => k.id === key.id)).toBeDefined();
    expect(listed.find((k) => k.id === key.id)?.revokedAt ?? null).toBeNull();
  });
});

describe('prompt content', () => {
  it('a field the record does not have is 422, naming the field it was meant to be: a misspelt groups never publishes to everyone', async () => {
    const cases = [
      [{ ...hello, group: ['sre'] }, 'group', 'did you mean "groups"?'],
      [{ ...hello, arguments: [{ name: 'who', require: true }] }, 'arguments[0].require', 'did you mean "required"?'],
      [
        { ...hello, messages: [{ role: 'user', content: { type: 'text', text: 'x' }, rol: 'user' }] },
        'messages[0].rol',
        'did you mean "role"?',
      ],
      // A record read back from the admin API carries its version; PUT back as it is, that is not content.
      [{ ...hello, _version: 3 }, '_version', 'the admin API adds it on reads'],
    ] as const;
    for (const [record, path, hint] of cases) {
      const res = await admin('PUT', '/prompts/misspelt', record);
      expect(res.status, path).toBe(422);
      const issues = await refused(res, 'invalid_prompts');
      expect(
        issues.map((i) => i.path),
        path,
      ).toEqual([path]);
      expect(issues[0]!.message, path).toContain(hint);
    }
    expect((await admin('GET', '/prompts/misspelt')).status).toBe(404);
    expect((await admin('PUT', '/prompts/misspelt', { ...hello, groups: ['sre'] })).status).toBe(200);
  });

  it('image data must be canonical base64: "QQ" is refused naming the field, "QQ==" accepted', async () => {
    const image = (data: string) => prompt({ type: 'image', mimeType: 'image/png', data });
    for (const data of ['QQ', 'QUFB=', 'QR==', 'QQ=A', 'QQ===']) {
      const res = await admin('PUT', '/prompts/b64_image', image(data));
      expect(res.status, data).toBe(422);
      expect((await refused(res, 'invalid_prompts')).map((i) => i.path)).toEqual(['messages[0].content.data']);
    }
    expect((await admin('GET', '/prompts/b64_image')).status).toBe(404);
    for (const data of ['QQ==', 'QUE=', 'QUFB', ''.padEnd(8, 'A')])
      expect((await admin('PUT', '/prompts/b64_image', image(data))).status, data).toBe(200);
  });

  it('text that is not valid Unicode (an unpaired surrogate) is 422: no file could hold it for pull', async () => {
    for (const text of ['a\ud800b', 'tail \udc00']) {
      const res = await admin('PUT', '/prompts/surrogate', prompt({ type: 'text', text }));
      expect(res.status, JSON.stringify(text)).toBe(422);
      const issues = await refused(res, 'invalid_prompts');
      expect(issues.map((i) => i.message).join()).toContain('unpaired surrogate');
    }
    // A pair is a character like any other, and a backslash before "ud800" is just text.
    for (const text of ['ok \ud83d\ude00', '\\ud800 as written']) {
      const res = await admin('PUT', '/prompts/surrogate', prompt({ type: 'text', text }));
      expect(res.status, JSON.stringify(text)).toBe(200);
      await res.body?.cancel();
    }
  });
  it('a resource link with a title or description that is not a string (or too long) is 422', async () => {
    const link = (extra: Record<string, unknown>) =>
      prompt({ type: 'resource_link', uri: 'https://example.com/doc', name: 'doc', ...extra });
    for (const [extra, field] of [
      [{ title: { toString: 1 } }, 'title'],
      [{ title: 7 }, 'title'],
      [{ description: ['x'] }, 'description'],
      [{ title: 'x'.repeat(201) }, 'title'],
    ] as const) {
      const res = await admin('PUT', '/prompts/typed_link', link(extra));
      expect(res.status, field).toBe(422);
      expect((await refused(res, 'invalid_prompts')).map((i) => i.path)).toEqual([`messages[0].content.${field}`]);
    }
    expect((await admin('GET', '/prompts/typed_link')).status).toBe(404);
    expect((await admin('PUT', '/prompts/typed_link', link({ title: 'Doc', description: 'The doc' }))).status).toBe(
      200,
    );
  });
});
