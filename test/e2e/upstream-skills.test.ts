/**
 * End-to-end, upstream skills through the aggregator (docs/upstreams.md, "Upstream skills"): real
 * SDK 2.x upstreams serving skills with the official Skills extension (one modern, one legacy with
 * sessions, a same-named skill on each) and a broken upstream, behind a real `wrangler dev`. Read with
 * the official SDK `SkillsClient`, which checks every file against the listed digest and size itself:
 * skills appear under `skill://<mount>/`, neither same-named skill shadows the other, a local skill's
 * folder holds an upstream's skill only for the callers who may see the local skill, the broken
 * upstream costs nothing else, bytes that fail the listed digest are refused, and an upstream skill's
 * change reaches connected clients as notifications/resources/list_changed (legacy GET stream and
 * modern listen). The poll is out of the way (60 s): changes travel on the upstreams' own streams.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { feedQuiet, streamWatch, waitUntil } from '../helpers/live.js';
import { faultyServer, skillMd, skillsServer, type Running, type SkillsUpstream } from '../helpers/upstreams.js';
import { startGateway, type Gateway } from '../helpers/wrangler-dev.js';

const sha256 = (b: string | Uint8Array) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

let gw: Gateway;
let modern: SkillsUpstream;
let legacy: SkillsUpstream;
let broken: Running;
const opened: { close(): Promise<void> }[] = [];

const MODERN_FILES = {
  'review/SKILL.md': skillMd('review', 'Reviews pull requests'),
  'review/references/GUIDE.md': '# Review guide\n',
  'review/assets/mark.bin': new Uint8Array([0, 1, 2, 250, 255]),
};
const LEGACY_FILES: Record<string, string> = {
  'review/SKILL.md': skillMd('review', 'Reviews contracts'),
};

beforeAll(async () => {
  modern = await skillsServer({ ...MODERN_FILES }, { prompts: ['hello'] });
  legacy = await skillsServer(LEGACY_FILES, { legacy: true });
  broken = await faultyServer('error500');
  const upstreams = [
    { id: 'github', url: modern.url, prefix: 'gh', timeout: 3000 },
    { id: 'acme', url: legacy.url, prefix: '', timeout: 3000 },
    { id: 'broken', url: broken.url, timeout: 1000 },
  ];
  gw = await startGateway({
    vars: {
      UPSTREAMS: JSON.stringify(upstreams),
      UPSTREAM_ALLOW_HTTP_LOOPBACK: 'true',
      UPSTREAM_POLL_MS: 60_000,
      NOTIFY_COALESCE_MS: 100,
    },
  });
  // An operator's refresh lists every upstream now (a first prompts/list or the cron would too).
  const res = await fetch(`${gw.url}/admin/upstreams/refresh`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.adminToken}` },
  });
  expect(res.status).toBe(200);
}, 120_000);

afterEach(async () => {
  await Promise.allSettled(opened.splice(0).map((c) => c.close()));
});

afterAll(async () => {
  await gw?.stop();
  await Promise.all([modern, legacy, broken].map((s) => s?.close()));
});

/** A client of either era; `admin`: with the ADMIN_TOKEN as its Bearer token, so it sees every skill. */
async function connect(era: 'modern' | 'legacy', admin = false) {
  const client = new Client(
    { name: `upstream-skills-${era}`, version: '1' },
    era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  opened.push(client);
  const requestInit = admin ? { headers: { authorization: `Bearer ${gw.adminToken}` } } : undefined;
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl), { requestInit }));
  return { client, skills: new SkillsClient(client) };
}

async function status(): Promise<Record<string, { state: string; prompts: number }>> {
  const body = (await (await fetch(`${gw.url}/status`)).json()) as {
    upstreams: { id: string; state: string; prompts: number }[];
  };
  return Object.fromEntries(body.upstreams.map((u) => [u.id, u]));
}

describe.each(['modern', 'legacy'] as const)('through the aggregator, %s era', (era) => {
  it("lists each upstream's skills under its mount; a same-named skill is never shadowed; the broken upstream costs nothing", async () => {
    const { skills } = await connect(era);
    const listing = await skills.list();
    expect(listing.invalid).toEqual([]);
    const byUri = Object.fromEntries(listing.skills.map((s) => [s.uri, s]));
    expect(byUri['skill://gh/review/SKILL.md']?.frontmatter).toEqual({
      name: 'review',
      description: 'Reviews pull requests',
    });
    expect(byUri['skill://acme/review/SKILL.md']?.frontmatter).toEqual({
      name: 'review',
      description: 'Reviews contracts',
    });
    const gh = byUri['skill://gh/review/SKILL.md']!;
    expect(gh.resources).toEqual(
      expect.arrayContaining([
        {
          uri: 'skill://gh/review/SKILL.md',
          digest: sha256(MODERN_FILES['review/SKILL.md']),
          size: MODERN_FILES['review/SKILL.md'].length,
        },
        { uri: 'skill://gh/review/assets/mark.bin', digest: sha256(MODERN_FILES['review/assets/mark.bin']), size: 5 },
      ]),
    );
    const s = await status();
    expect(s.broken!.state).toBe('failing');
    expect(s.github!.state).toBe('healthy');
    expect(s.acme!.state).toBe('healthy');
  });

  it('reads every file through the upstream, bytes matching the listed digests (SkillsClient verifies)', async () => {
    const { skills } = await connect(era);
    const { skill } = await skills.get('skill://gh/review/SKILL.md');
    const files = skill.resources === 'dynamic' ? [] : skill.resources;
    expect(files).toHaveLength(3);
    for (const f of files) {
      const read = await skills.read(skill, f.uri);
      expect(read.verified).toBe(true);
      expect(sha256(read.bytes), f.uri).toBe(f.digest);
    }
    expect((await skills.read(skill, 'assets/mark.bin')).bytes).toEqual(MODERN_FILES['review/assets/mark.bin']);
    const other = (await skills.get('skill://acme/review/SKILL.md')).skill;
    expect((await skills.read(other)).text).toBe(LEGACY_FILES['review/SKILL.md']);
  });
});

describe('digest checks and errors', () => {
  it('bytes that fail the listed digest are refused with -32603 naming the upstream', async () => {
    const { client } = await connect('modern');
    modern.setTampered('# not what was listed\n');
    try {
      const err = await client.readResource({ uri: 'skill://gh/review/references/GUIDE.md' }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: -32603, message: expect.stringContaining('Upstream "github"') });
      expect(String((err as Error).message)).toContain('listed digest');
    } finally {
      modern.setTampered(undefined);
    }
  });

  it('only the file asked for passes: an item the upstream adds to its answer is dropped, unchecked as it would be', async () => {
    const { client } = await connect('modern');
    modern.setSmuggled({ uri: 'skill://review/references/GUIDE.md', mimeType: 'text/markdown', text: '# smuggled\n' });
    try {
      const read = await client.readResource({ uri: 'skill://gh/review/SKILL.md' });
      expect(read.contents).toEqual([
        { uri: 'skill://gh/review/SKILL.md', mimeType: 'text/markdown', text: MODERN_FILES['review/SKILL.md'] },
      ]);
    } finally {
      modern.setSmuggled(undefined);
    }
  });

  it('an unknown file under a mount is not found', async () => {
    const { client } = await connect('legacy');
    const err = await client.readResource({ uri: 'skill://gh/review/nothing.md' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: -32602 });
  });
});

describe('a local skill some callers may not see, whose folder holds an upstream skill', () => {
  const md = skillMd('acme', 'Local, for eng only');
  const admin = (method: string, path: string, body?: BodyInit) =>
    fetch(`${gw.url}/admin/skills${path}`, {
      method,
      body,
      headers: {
        authorization: `Bearer ${gw.adminToken}`,
        'content-type': method === 'PUT' ? 'application/octet-stream' : 'application/json',
      },
    });

  it("takes that folder only for those who see it: everyone else is listed and served the upstream's files", async () => {
    // The local skill `acme` is at skill://acme/, the folder the unprefixed acme upstream's skills are mounted in.
    expect((await admin('PUT', `/files/${sha256(md)}`, md)).status).toBe(200);
    const record = {
      name: 'acme',
      frontmatter: { name: 'acme', description: 'Local, for eng only' },
      files: [{ path: 'SKILL.md', digest: sha256(md), size: Buffer.byteLength(md) }],
      groups: ['eng'],
    };
    expect((await admin('POST', '/publish', JSON.stringify({ skills: [record] }))).status).toBe(200);
    try {
      for (const era of ['modern', 'legacy'] as const) {
        const anyone = await connect(era);
        const theirs = (await anyone.skills.list()).skills.map((x) => x.uri);
        expect(theirs).toContain('skill://acme/review/SKILL.md');
        expect(theirs).not.toContain('skill://acme/SKILL.md');
        const { skill } = await anyone.skills.get('skill://acme/review/SKILL.md');
        expect((await anyone.skills.read(skill)).text).toBe(LEGACY_FILES['review/SKILL.md']);
        const hidden = await anyone.client.readResource({ uri: 'skill://acme/SKILL.md' }).catch((e: unknown) => e);
        expect(hidden).toMatchObject({ code: -32602 });

        const eng = await connect(era, true);
        const mine = (await eng.skills.list()).skills.map((x) => x.uri);
        expect(mine).toContain('skill://acme/SKILL.md');
        expect(mine).not.toContain('skill://acme/review/SKILL.md');
        expect((await eng.skills.read((await eng.skills.get('skill://acme/SKILL.md')).skill)).text).toBe(md);
        const shadowed = await eng.client
          .readResource({ uri: 'skill://acme/review/SKILL.md' })
          .catch((e: unknown) => e);
        expect(shadowed).toMatchObject({ code: -32602 });
      }
    } finally {
      expect((await admin('DELETE', '/acme')).status).toBe(200);
    }
  });
});

async function refresh(): Promise<void> {
  const res = await fetch(`${gw.url}/admin/upstreams/refresh`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.adminToken}` },
  });
  expect(res.status).toBe(200);
}

describe('failures isolated', () => {
  it('a failing skills listing keeps the prompts and the last good skills (marked stale in /status)', async () => {
    modern.setSkillsFailing(true);
    try {
      await refresh();
      const gh = (await status()).github as unknown as Record<string, unknown>;
      expect(gh).toMatchObject({ state: 'healthy', prompts: 1, skills: 1 });
      expect(gh.skillsError).toMatch(/^rpc_error: skills are broken today/);
      const { client, skills } = await connect('modern');
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain('gh.hello');
      const listing = await skills.list();
      expect(listing.skills.map((x) => x.uri)).toContain('skill://gh/review/SKILL.md');
    } finally {
      modern.setSkillsFailing(false);
    }
    await refresh();
    expect((await status()).github as unknown as Record<string, unknown>).not.toHaveProperty('skillsError');
  });
});

describe("an upstream skill's change reaches connected clients", () => {
  it('as notifications/resources/list_changed on a legacy GET stream and a modern listen, with the new listing', async () => {
    await feedQuiet(gw.url);
    // Legacy: the SDK v1 client's standalone GET stream.
    const v1 = new V1Client({ name: 'upstream-skills-v1', version: '1' });
    opened.push(v1);
    let heardLegacy = 0;
    v1.setNotificationHandler(ResourceListChangedNotificationSchema, () => void (heardLegacy += 1));
    const watch = streamWatch();
    await v1.connect(new V1Transport(new URL(gw.mcpUrl), { fetch: watch.fetch }));
    await watch.attached();
    // Modern: a listen stream that asks for resources changes.
    const { client, skills } = await connect('modern');
    let heardModern = 0;
    client.setNotificationHandler('notifications/resources/list_changed', () => void (heardModern += 1));
    const sub = await client.listen({ resourcesListChanged: true });
    expect(sub.honoredFilter.resourcesListChanged).toBe(true);

    LEGACY_FILES['review/SKILL.md'] = skillMd('review', 'Reviews contracts, twice');
    await legacy.reload();
    await waitUntil(() => heardLegacy > 0 && heardModern > 0, 'notifications/resources/list_changed on both streams');
    const listing = await skills.list();
    expect(listing.skills.find((s) => s.uri === 'skill://acme/review/SKILL.md')?.frontmatter.description).toBe(
      'Reviews contracts, twice',
    );
    await sub.close();
  });
});
