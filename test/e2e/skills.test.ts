/**
 * End-to-end, skills (SEP-2640) from files (test/fixtures/skills: two skill folders, one with text and
 * binary files, and a prompt) served by a real `wrangler dev`, read with the official SDK
 * v2 `SkillsClient` (`@modelcontextprotocol/client/ext/skills`), which checks every file it reads
 * against the skill's entry itself (listed, size, SHA-256 digest, and SKILL.md's front matter), in the
 * modern era and at 2025-11-25; and with the SDK v1 client's own resources methods and raw requests.
 */
import { Client, ResourceNotFoundError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient, type Skill } from '@modelcontextprotocol/client/ext/skills';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { counts, runSuite } from '../conformance/suite.js';
import { PROJECT_ROOT, startGateway, type Gateway } from '../helpers/wrangler-dev.js';

const FIXTURES = join(PROJECT_ROOT, 'test/fixtures/skills');
const file = (path: string) => new Uint8Array(readFileSync(join(FIXTURES, path)));
const PDF_FILES = ['SKILL.md', 'assets/mark.png', 'references/FORMS.md', 'scripts/fill.py'];
const sha256 = (b: Uint8Array) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

let gw: Gateway;
const opened: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  // One entry per page: SkillsClient.list walks the cursors itself. The folder (a prompt and two skill
  // folders) is published as a user publishes it, with `promptgate push` (docs/skills.md).
  gw = await startGateway({ promptsDir: FIXTURES, pageSize: 1 });
}, 120_000);

afterEach(async () => {
  await Promise.allSettled(opened.splice(0).map((c) => c.close()));
});

afterAll(async () => {
  await gw?.stop();
});

async function connect(era: 'modern' | 'legacy'): Promise<{ client: Client; skills: SkillsClient }> {
  const client = new Client(
    { name: `skills-e2e-${era}`, version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  opened.push(client);
  const transport = new StreamableHTTPClientTransport(new URL(gw.mcpUrl));
  await client.connect(transport);
  expect(transport.protocolVersion).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25');
  return { client, skills: new SkillsClient(client) };
}

describe.each(['modern', 'legacy'] as const)('SDK v2 SkillsClient, %s era', (era) => {
  it('lists every page and gets each skill by its URI', async () => {
    const { skills } = await connect(era);
    expect(skills.supported).toBe(true);
    const listing = await skills.list();
    expect(listing.invalid).toEqual([]);
    expect(listing.skills.map((s) => s.uri)).toEqual(['skill://pdf-forms/SKILL.md', 'skill://release-notes/SKILL.md']);
    if (era === 'modern') expect(listing).toMatchObject({ ttlMs: expect.any(Number), cacheScope: 'public' });
    const pdf = listing.skills[0]!;
    expect(pdf.frontmatter).toEqual({
      name: 'pdf-forms',
      description: 'Fill in PDF forms from structured data and check the result. Use when a task hands you a PDF form.',
      license: 'MIT',
      metadata: { owner: 'docs-team', version: '1.2' },
    });
    expect(pdf.resources).toEqual(
      PDF_FILES.map((p) => ({
        uri: `skill://pdf-forms/${p}`,
        digest: sha256(file(`pdf-forms/${p}`)),
        size: file(`pdf-forms/${p}`).byteLength,
      })),
    );
    for (const s of listing.skills) {
      const got = await skills.get(s.uri);
      expect(got.skill).toEqual(s);
      if (era === 'modern') expect(got).toMatchObject({ ttlMs: expect.any(Number), cacheScope: 'public' });
    }
  });

  it('reads every file, verified against the entry (size, digest, front matter), with the bytes on disk', async () => {
    const { skills } = await connect(era);
    const { skills: all } = await skills.list();
    const pdf = all.find((s) => s.uri === 'skill://pdf-forms/SKILL.md')!;
    const manifest = await skills.read(pdf);
    expect(manifest).toMatchObject({ uri: 'skill://pdf-forms/SKILL.md', mimeType: 'text/markdown', verified: true });
    expect(manifest.frontmatter).toEqual(pdf.frontmatter);
    expect(manifest.body).toContain('# PDF forms');
    for (const path of PDF_FILES) {
      const read = await skills.read(pdf, path);
      expect(read.verified, path).toBe(true);
      expect(Buffer.from(read.bytes).equals(Buffer.from(file(`pdf-forms/${path}`))), path).toBe(true);
    }
    expect((await skills.read(pdf, 'assets/mark.png')).text).toBeUndefined();
    expect((await skills.read(pdf, 'references/FORMS.md')).text).toContain('— as printed');
    const notes = all.find((s) => s.uri === 'skill://release-notes/SKILL.md')!;
    expect((await skills.read(notes)).frontmatter).toEqual(notes.frontmatter);
  });

  it('an unknown skill is -32602; an unlisted file is refused before any request, a missing one not found', async () => {
    const { client, skills } = await connect(era);
    await expect(skills.get('skill://nope/SKILL.md')).rejects.toMatchObject({ code: -32602 });
    const pdf = (await skills.get('skill://pdf-forms/SKILL.md')).skill;
    await expect(skills.read(pdf, 'references/NOPE.md')).rejects.toMatchObject({ reason: 'unlisted' });
    const missing: unknown = await client
      .request({ method: 'resources/read', params: { uri: 'skill://pdf-forms/NOPE.md' } })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    // -32602 with exactly {uri} as data: the SDK's ResourceNotFoundError, in both eras.
    expect(missing).toBeInstanceOf(ResourceNotFoundError);
    expect(missing).toMatchObject({ code: -32602, uri: 'skill://pdf-forms/NOPE.md' });
  });

  it('resources/list names each SKILL.md after its front matter', async () => {
    const { client } = await connect(era);
    const { resources } = await client.listResources();
    expect(resources.map((r) => [r.uri, r.name, r.mimeType])).toEqual([
      ['skill://pdf-forms/SKILL.md', 'pdf-forms', 'text/markdown'],
      ['skill://release-notes/SKILL.md', 'release-notes', 'text/markdown'],
    ]);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['greet']);
  });
});

/**
 * The official suite's Skills scenarios (0.2.0 alpha; it runs extension scenarios at its default wires only)
 * against this gateway, one entry per page: every check passes, except the directory checks, which skip
 * because `directoryRead` is not declared.
 */
describe.each(['sep-2640-skills-enumeration', 'sep-2640-skills-manifest', 'sep-2640-skills-directory'])(
  'official conformance, %s',
  (scenario) => {
    it('passes every check it runs', async () => {
      const run = await runSuite({ build: 'next', url: gw.mcpUrl, baselines: [], scenario });
      const checks = run.scenarios.get(scenario);
      expect(checks, run.output.slice(-2000)).toBeDefined();
      expect(run.exitCode, run.output.slice(-2000)).toBe(0);
      const bad = checks!.filter((c) => c.status !== 'SUCCESS' && c.status !== 'SKIPPED' && c.status !== 'INFO');
      expect(bad, JSON.stringify(bad, null, 2)).toEqual([]);
      if (scenario === 'sep-2640-skills-directory')
        expect(checks!.filter((c) => c.status === 'SKIPPED').map((c) => c.id)).toContain(
          'sep-2640-directory-read-method-registered',
        );
      else expect(counts(checks!)).toEqual({ passed: checks!.length, failed: 0 });
    }, 120_000);
  },
);

describe('SDK v1 client', () => {
  it('lists and reads skill resources, and calls skills/list and skills/get as plain requests', async () => {
    const client = new V1Client({ name: 'skills-e2e-v1', version: '1.0.0' });
    opened.push(client);
    await client.connect(new V1Transport(new URL(gw.mcpUrl)));
    expect(client.getServerCapabilities()?.extensions).toEqual({ 'io.modelcontextprotocol/skills': {} });
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['skill://pdf-forms/SKILL.md']);
    const png = (await client.readResource({ uri: 'skill://pdf-forms/assets/mark.png' })).contents[0]!;
    expect(
      'blob' in png && Buffer.from(png.blob, 'base64').equals(Buffer.from(file('pdf-forms/assets/mark.png'))),
    ).toBe(true);
    const anyResult = z.looseObject({});
    const list = (await client.request({ method: 'skills/list', params: {} }, anyResult)) as {
      skills: Skill[];
      nextCursor?: string;
    };
    expect(list.skills.map((s) => s.uri)).toEqual(['skill://pdf-forms/SKILL.md']);
    const second = (await client.request(
      { method: 'skills/list', params: { cursor: list.nextCursor } },
      anyResult,
    )) as {
      skills: Skill[];
    };
    expect(second.skills.map((s) => s.uri)).toEqual(['skill://release-notes/SKILL.md']);
    const got = (await client.request(
      { method: 'skills/get', params: { uri: 'skill://release-notes/SKILL.md' } },
      anyResult,
    )) as {
      skill: Skill;
    };
    expect(got.skill).toEqual(second.skills[0]);
  });
});
