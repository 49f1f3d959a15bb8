/**
 * Publishing skills through the admin API and the single writer (docs/skills.md): files by
 * digest first (verified, idempotent), then records that name them, refused while any file is
 * missing; every version kept, rollback, delete, prune, dry run; the KV snapshot carries them.
 */
import { env, runDurableObjectAlarm, runInDurableObject, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { digestOf, fileKey } from '../../src/catalog/skills/file-store.js';
import { KV_KEYS, readGeneration } from '../../src/catalog/store.js';
import type { CatalogSnapshot, SkillRecord } from '../../src/catalog/types.js';
import { shardCount, shardIndex, shardStub } from '../../src/session/fanout.js';
import { MAX_ADMIN_BODY } from '../../src/routes/admin-json.js';
import { feedStub, flushFeed, holdFeed } from '../helpers/feed.js';
import { ADMIN_BASE, ADMIN_TOKEN, adminFetch as admin, MCP_URL, openSession, openStream } from '../helpers/worker.js';

const enc = (s: string) => new TextEncoder().encode(s);

async function upload(bytes: Uint8Array, digest?: string): Promise<Response> {
  return SELF.fetch(`${ADMIN_BASE}/skills/files/${digest ?? (await digestOf(bytes))}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/octet-stream' },
    body: bytes,
  });
}

/** A skill whose SKILL.md (and one reference) are made from `body`, uploaded or not. */
async function skill(name: string, body: string, uploadFiles = true): Promise<SkillRecord> {
  const md = enc(`---\nname: ${name}\ndescription: ${body}\n---\n\n# ${name}\n\n${body}\n`);
  const ref = enc(`Reference for ${name}: ${body}`);
  if (uploadFiles) for (const b of [md, ref]) expect((await upload(b)).status).toBe(200);
  return {
    name,
    frontmatter: { name, description: body },
    files: [
      { path: 'SKILL.md', digest: await digestOf(md), size: md.byteLength, mimeType: 'text/markdown' },
      { path: 'references/REF.md', digest: await digestOf(ref), size: ref.byteLength, mimeType: 'text/markdown' },
    ],
  };
}

const snapshot = async () => (await env.PROMPTS.get<CatalogSnapshot>(KV_KEYS.head, 'json'))!;

describe('skill files', () => {
  it('are stored once by digest, and bytes that do not hash to the digest are refused', async () => {
    const bytes = enc('hello skill');
    const digest = await digestOf(bytes);
    const res = await upload(bytes);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ digest, size: bytes.byteLength });
    expect(new Uint8Array((await env.PROMPTS.get(fileKey(digest), 'arrayBuffer'))!)).toEqual(bytes);
    expect((await upload(bytes)).status).toBe(200);
    const wrong = await upload(enc('something else'), digest);
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as any).error.code).toBe('digest_mismatch');
    const got = await SELF.fetch(`${ADMIN_BASE}/skills/files/${digest}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(bytes);
  });

  it('files/missing names exactly the digests not uploaded', async () => {
    const here = await digestOf(enc('present file'));
    await upload(enc('present file'));
    const absent = await digestOf(enc('never uploaded'));
    const res = await admin('POST', '/skills/files/missing', { digests: [here, absent, absent] });
    expect(await res.json()).toEqual({ missing: [absent] });
    expect((await admin('POST', '/skills/files/missing', { digests: ['md5:x'] })).status).toBe(400);
  });

  it('refuse a malformed digest in the path, storing nothing', async () => {
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    for (const digest of ['sha256:abc', 'md5:' + 'a'.repeat(64), 'sha256:' + 'A'.repeat(64)]) {
      const put = await upload(enc('x'), digest);
      expect(put.status).toBe(400);
      expect(((await put.json()) as any).error.code).toBe('invalid_digest');
      expect(await env.PROMPTS.get(fileKey(digest))).toBeNull();
      const get = await SELF.fetch(`${ADMIN_BASE}/skills/files/${digest}`, { headers: auth });
      expect(get.status).toBe(400);
      expect(((await get.json()) as any).error.code).toBe('invalid_digest');
    }
  });

  it('are fetched without a query: an ignored one is 400 invalid_query, as for PUT and files/missing', async () => {
    const digest = await digestOf(enc('queried file'));
    await upload(enc('queried file'));
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const plain = await SELF.fetch(`${ADMIN_BASE}/skills/files/${digest}`, { headers: auth });
    expect(plain.status).toBe(200);
    await plain.arrayBuffer();
    const queried = await SELF.fetch(`${ADMIN_BASE}/skills/files/${digest}?x=1`, { headers: auth });
    expect(queried.status).toBe(400);
    expect(((await queried.json()) as any).error.code).toBe('invalid_query');
  });

  it('need the admin token', async () => {
    const res = await SELF.fetch(`${ADMIN_BASE}/skills/files/${await digestOf(enc('x'))}`, {
      method: 'PUT',
      body: enc('x'),
    });
    expect(res.status).toBe(401);
  });
});

describe('publishing skills', () => {
  it('refuses a skill whose files were not uploaded, and writes nothing', async () => {
    const before = await readGeneration(env.PROMPTS);
    const res = await admin('POST', '/skills/publish', { skills: [await skill('not-uploaded', 'lost bytes', false)] });
    expect(res.status).toBe(422);
    const body = (await res.json()) as any;
    expect(body.error.code).toBe('invalid_skills');
    expect(body.error.issues[0].message).toContain('upload it first');
    expect(await readGeneration(env.PROMPTS)).toBe(before);
    expect((await admin('GET', '/skills/not-uploaded')).status).toBe(404);
  });

  it('refuses invalid records with every problem named', async () => {
    const good = await skill('fine-skill', 'ok');
    const res = await admin('POST', '/skills/publish', {
      skills: [
        { ...good, name: 'Bad_Name' },
        { ...good, frontmatter: { name: 'other', description: '' } },
        { ...good, files: good.files.filter((f) => f.path !== 'SKILL.md') },
        { ...good, files: [...good.files, { path: '../escape', digest: good.files[0]!.digest, size: 1 }] },
      ],
    });
    expect(res.status).toBe(422);
    const paths = ((await res.json()) as any).error.issues.map((i: { path: string }) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'skills[0]: name',
        'skills[1]: frontmatter.name',
        'skills[1]: frontmatter.description',
        'skills[2]: files',
        'skills[3]: files[2].path',
      ]),
    );
  });

  it('refuses front matter the SDK client refuses, naming the field; nothing is written', async () => {
    const good = await skill('typed-meta', 'ok');
    const before = await readGeneration(env.PROMPTS);
    const res = await admin('POST', '/skills/publish', {
      skills: [{ ...good, frontmatter: { ...good.frontmatter, metadata: { version: 1 }, compatibility: '' } }],
    });
    expect(res.status).toBe(422);
    expect(((await res.json()) as any).error.issues).toEqual([
      { path: 'skills[0]: frontmatter.compatibility', message: 'must be a string of 1-500 characters' },
      { path: 'skills[0]: frontmatter.metadata.version', message: 'must be a string, not 1 (quote it in SKILL.md)' },
    ]);
    expect(await readGeneration(env.PROMPTS)).toBe(before);
  });

  it('a set over the admin body cap is 413 saying what to do', async () => {
    const res = await admin('POST', '/skills/publish', { skills: [], pad: 'x'.repeat(MAX_ADMIN_BODY) });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.message).toBe(
      `Body over ${MAX_ADMIN_BODY} bytes; publish the skills in smaller sets, without prune (which deletes every skill a set leaves out)`,
    );
  });

  it('publishes a set into the snapshot, keeps every version, rolls back, deletes and prunes', async () => {
    const v1 = await skill('release-helper', 'first text');
    const first = (await (await admin('POST', '/skills/publish', { skills: [v1] })).json()) as any;
    expect(first.diff.added).toEqual(['release-helper']);
    expect(first.versions).toEqual({ 'release-helper': 1 });
    let snap = await snapshot();
    expect(snap.generation).toBe(first.generation);
    expect(snap.skills?.find((s) => s.name === 'release-helper')).toEqual(v1);
    // Unchanged: no version, no generation.
    const again = (await (await admin('POST', '/skills/publish', { skills: [v1] })).json()) as any;
    expect(again.diff.unchanged).toEqual(['release-helper']);
    expect(await readGeneration(env.PROMPTS)).toBe(first.generation);

    const v2 = await skill('release-helper', 'second text');
    const second = (await (await admin('POST', '/skills/publish', { skills: [v2] })).json()) as any;
    expect(second.versions).toEqual({ 'release-helper': 2 });
    const history = ((await (await admin('GET', '/skills/release-helper/history')).json()) as any).history;
    expect(
      history.map((h: { version: number; record: SkillRecord }) => [h.version, h.record.frontmatter.description]),
    ).toEqual([
      [1, 'first text'],
      [2, 'second text'],
    ]);
    const rolled = (await (await admin('POST', '/skills/release-helper/rollback', { version: 1 })).json()) as any;
    expect(rolled.versions).toEqual({ 'release-helper': 3 });
    snap = await snapshot();
    expect(snap.skills?.find((s) => s.name === 'release-helper')).toEqual(v1);

    // A prompt named like a skill is a different thing: the two never share versions.
    const p = await admin('PUT', '/prompts/release-helper', {
      messages: [{ role: 'user', content: { type: 'text', text: 'a prompt' } }],
    });
    expect(((await p.json()) as any).versions).toEqual({ 'release-helper': 1 });

    const other = await skill('other-skill', 'kept until pruned');
    await admin('POST', '/skills/publish', { skills: [other] });
    const dry = (await (await admin('POST', '/skills/publish?prune=1&dry_run=1', { skills: [v1] })).json()) as any;
    expect(dry.diff.removed).toContain('other-skill');
    expect((await snapshot()).skills?.some((s) => s.name === 'other-skill')).toBe(true);
    await admin('POST', '/skills/publish?prune=1', { skills: [v1] });
    expect((await snapshot()).skills?.map((s) => s.name)).toEqual(['release-helper']);

    const del = await admin('DELETE', '/skills/release-helper');
    expect(del.status).toBe(200);
    expect((await snapshot()).skills).toEqual([]);
    expect((await snapshot()).prompts.some((x) => x.name === 'release-helper')).toBe(true);
    const gone = (await (await admin('GET', '/skills/release-helper')).json()) as any;
    expect(gone.skill).toBeNull();
    expect(gone.versions.at(-1).deleted).toBe(true);
    expect((await admin('DELETE', '/skills/release-helper')).status).toBe(404);
    expect((await admin('GET', '/skills/Bad_Name')).status).toBe(400);
    expect((await admin('GET', '/skills/%E0%A4%A')).status).toBe(400);
    expect((await admin('GET', '/skills/release-helper/versions')).status).toBe(404);
    expect((await admin('POST', '/skills/release-helper/history', { version: 1 })).status).toBe(404);
  });
});

describe('a skill named like a route', () => {
  it('`files` and `publish` have their history, rollback and delete like any other skill', async () => {
    for (const name of ['files', 'publish']) {
      expect((await admin('POST', '/skills/publish', { skills: [await skill(name, 'one')] })).status).toBe(200);
      expect((await admin('POST', '/skills/publish', { skills: [await skill(name, 'two')] })).status).toBe(200);
      const history = await admin('GET', `/skills/${name}/history`);
      expect(history.status, name).toBe(200);
      expect(((await history.json()) as any).history.map((h: { version: number }) => h.version)).toEqual([1, 2]);
      expect((await admin('POST', `/skills/${name}/rollback`, { version: 1 })).status, name).toBe(200);
      expect(((await (await admin('GET', `/skills/${name}`)).json()) as any).version).toBe(3);
      expect((await admin('DELETE', `/skills/${name}`)).status, name).toBe(200);
    }
  });
});

describe('announcements', () => {
  it('the current skills are listed in pages, as prompts are, and never mixed with prompts', async () => {
    const set = [await skill('paged-one', 'one'), await skill('paged-two', 'two'), await skill('paged-three', 'three')];
    expect((await admin('POST', '/skills/publish', { skills: set })).status).toBe(200);
    const prompt = { messages: [{ role: 'user', content: { type: 'text', text: 'a prompt, not a skill' } }] };
    expect((await admin('PUT', '/prompts/paged-prompt', prompt)).status).toBe(200);
    const whole = ((await (await admin('GET', '/skills')).json()) as any).skills.map((s: any) => s.name);
    const paged: string[] = [];
    let after: string | undefined;
    do {
      const page = (await (await admin('GET', `/skills?limit=1${after ? `&after=${after}` : ''}`)).json()) as any;
      expect(page.skills).toHaveLength(1);
      expect(page.prompts).toBeUndefined();
      paged.push(page.skills[0].name);
      after = page.next;
    } while (after);
    expect(paged).toEqual(whole);
    expect(whole).toEqual(expect.arrayContaining(['paged-one', 'paged-three', 'paged-two']));
    // Skill names only: a prompt whose name sorts among them is not listed with them.
    expect(whole).not.toContain('paged-prompt');
    expect(whole.every((n: string) => /^[a-z0-9-]+$/.test(n))).toBe(true);
  });
  it('a skills publish is a resources change on connected streams; a prompts publish is a prompts change', async () => {
    await flushFeed();
    const session = await openSession();
    const stream = await openStream(session);
    await admin('POST', '/skills/publish', { skills: [await skill('announced-skill', 'one')] });
    await flushFeed();
    expect((await stream.nextMessage()).message).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/list_changed',
    });
    await admin('PUT', '/prompts/announced_prompt', {
      messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
    });
    await flushFeed();
    expect((await stream.nextMessage()).message).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/prompts/list_changed',
    });
    await stream.close();
  });
});

describe('a fan-out that failed at a shard', () => {
  it('is retried by the feed itself; a change published meanwhile is announced on its own, each list once', async () => {
    await flushFeed();
    const session = await openSession();
    const stream = await openStream(session);
    await holdFeed();
    // The prompts change fails at a shard other than the stream's: this stream has it, the feed must retry it.
    const shards = shardCount(env);
    const other = shardStub(env, (shardIndex(session.id, shards) + 1) % shards);
    await admin('PUT', '/prompts/retried_prompt', {
      messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
    });
    await runInDurableObject(other, (_o, ctx) => ctx.storage.sql.exec('ALTER TABLE events RENAME TO e2'));
    try {
      // The runtime gives up on a throwing alarm after a few tries: the feed arms its own retry instead.
      await runDurableObjectAlarm(feedStub());
      const retryAt = await runInDurableObject(feedStub(), (_o, ctx) => ctx.storage.getAlarm());
      expect(retryAt).not.toBeNull();
      expect(retryAt! - Date.now()).toBeLessThanOrEqual(1_000);
      expect((await stream.nextMessage()).message.method).toBe('notifications/prompts/list_changed');
      // A skills change while the prompts change is still going out.
      await admin('POST', '/skills/publish', { skills: [await skill('retried-skill', 'two')] });
    } finally {
      await runInDurableObject(other, (_o, ctx) => ctx.storage.sql.exec('ALTER TABLE e2 RENAME TO events'));
    }
    await flushFeed();
    expect((await SELF.fetch(MCP_URL, { method: 'DELETE', headers: { 'mcp-session-id': session.id } })).status).toBe(
      200,
    );
    // The skills change is announced as itself: the prompts change is not announced a second time.
    expect((await stream.rest()).map((m) => m.message.method)).toEqual(['notifications/resources/list_changed']);
  });
});
