/**
 * Skills through the promptgate CLI against a real `wrangler dev` (docs/skills.md): the start-up
 * push publishes the example skill; pull writes it back byte for byte; a changed file is
 * uploaded and published as a new version; history and rollback take --skill.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SkillRecord } from '../../src/catalog/types.js';
import { runCli } from '../helpers/cli.js';
import { PROJECT_ROOT, startGateway, type Gateway } from '../helpers/wrangler-dev.js';

let gw: Gateway;
let work: string;
const cli = (...args: string[]) => runCli(gw, ...args);
const EXAMPLE = join(PROJECT_ROOT, 'prompts/skills/release-notes');

function filesUnder(dir: string, at = dir): string[] {
  return readdirSync(at, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(dir, join(at, e.name)) : [relative(dir, join(at, e.name))],
  );
}

async function published(name: string): Promise<SkillRecord> {
  const res = await fetch(`${gw.url}/admin/skills/${name}`, { headers: { authorization: `Bearer ${gw.adminToken}` } });
  return ((await res.json()) as { skill: SkillRecord }).skill;
}

beforeAll(async () => {
  gw = await startGateway();
  work = mkdtempSync(join(tmpdir(), 'promptgate-cli-skills-'));
  cpSync(join(PROJECT_ROOT, 'prompts'), join(work, 'prompts'), { recursive: true });
});

afterAll(async () => {
  await gw?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('promptgate CLI with skills', () => {
  it('validate counts skills; pull writes the published skill back byte for byte', async () => {
    const v = await cli('validate', join(work, 'prompts'));
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toMatch(/prompt\(s\) and 2 skill\(s\) in .* are valid/);
    const pulled = join(work, 'pulled');
    const p = await cli('pull', pulled);
    expect(p.code, p.stderr).toBe(0);
    expect(p.stdout).toContain('skill release-notes (version 1)');
    expect(p.stdout).toContain('skill commit-message-review (version 1)');
    const back = join(pulled, 'skills/release-notes');
    expect(filesUnder(back).sort()).toEqual(filesUnder(EXAMPLE).sort());
    for (const f of filesUnder(EXAMPLE)) expect(readFileSync(join(back, f))).toEqual(readFileSync(join(EXAMPLE, f)));
  });

  it('pull keeps the groups and media types of a skill: pulled and pushed back, nothing changes', async () => {
    const folder = join(work, 'grouped/skills/oncall-runbook');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'SKILL.md'),
      '---\nname: oncall-runbook\ndescription: Page the on-call.\n---\n\n# Run\n',
    );
    mkdirSync(join(folder, 'data'));
    writeFileSync(join(folder, 'data/pagers.bin'), 'name,phone\n');
    writeFileSync(join(folder, '.promptgate.yaml'), 'groups: [sre]\nmimeTypes:\n  data/pagers.bin: text/csv\n');
    const first = await cli('push', join(work, 'grouped'));
    expect(first.code, first.stderr).toBe(0);
    const v1 = await published('oncall-runbook');
    expect(v1.groups).toEqual(['sre']);
    expect(v1.files.map((f) => [f.path, f.mimeType])).toEqual([
      ['SKILL.md', 'text/markdown'],
      ['data/pagers.bin', 'text/csv'],
    ]);

    const pulled = join(work, 'pulled-groups');
    expect((await cli('pull', pulled)).code).toBe(0);
    const diff = await cli('diff', pulled);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain('no differences');
    const again = await cli('push', pulled);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/skills: 0 added, 0 changed, 0 deleted, \d+ unchanged; 0 file\(s\) uploaded/);
    expect(await published('oncall-runbook')).toEqual(v1);
    // The suites after this one diff the example set alone.
    const del = await fetch(`${gw.url}/admin/skills/oncall-runbook`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${gw.adminToken}` },
    });
    expect(del.status).toBe(200);
  });

  it('a changed file is uploaded and published as a new version; history and rollback take --skill', async () => {
    const v1 = await published('release-notes');
    const style = join(work, 'prompts/skills/release-notes/references/STYLE.md');
    writeFileSync(style, `${readFileSync(style, 'utf8')}\n- Credit outside contributors by handle.\n`);
    const diff = await cli('diff', join(work, 'prompts'));
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toMatch(/~ release-notes .*\n\s+release-notes: files\[1\]\.digest, files\[1\]\.size/);
    expect(diff.stdout).not.toContain('no differences');
    const push = await cli('push', join(work, 'prompts'));
    expect(push.code, push.stderr).toBe(0);
    expect(push.stdout).toContain('skills: 0 added, 1 changed, 0 deleted, 1 unchanged; 1 file(s) uploaded');
    const v2 = await published('release-notes');
    const changed = v2.files.find((f) => f.path === 'references/STYLE.md')!;
    expect(changed.digest).not.toBe(v1.files.find((f) => f.path === 'references/STYLE.md')!.digest);
    expect(changed.size).toBe(readFileSync(style).byteLength);

    const h = await cli('history', 'release-notes', '--skill');
    expect(h.code, h.stderr).toBe(0);
    expect(h.stdout).toMatch(/v1 .*\n.*v2 /);
    const rb = await cli('rollback', 'release-notes', '1', '--skill');
    expect(rb.code, rb.stderr).toBe(0);
    expect(rb.stdout).toContain('restored from version 1 as version 3');
    expect(await published('release-notes')).toEqual(v1);
    // Without --skill the name is a prompt's, and there is none.
    expect((await cli('history', 'release-notes')).code).toBe(1);
  });

  it('a broken skill folder publishes nothing and names the folder', async () => {
    writeFileSync(join(work, 'prompts/skills/release-notes/SKILL.md'), '---\nname: release-notes\n---\n');
    const push = await cli('push', join(work, 'prompts'));
    expect(push.code).toBe(1);
    expect(push.stderr).toMatch(/skills\/release-notes: frontmatter\.description: required/);
    expect((await published('release-notes')).frontmatter.description).toMatch(/^Write user-facing release notes/);
  });
});
