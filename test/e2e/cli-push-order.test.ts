/**
 * `promptgate push` asks the gateway about its prompt set before it publishes anything: a set the
 * gateway refuses (here: one that would take the catalog past its size limit, which no local check
 * can know) stops the push before the directory's skills are published, as it does for a set sent
 * in parts. A real `wrangler dev`, the catalog filled close to its limit through the admin API.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MAX_CATALOG_BYTES } from '../../src/catalog/versioned-writes.js';
import { runCli } from '../helpers/cli.js';
import { PROJECT_ROOT, startGateway, type Gateway } from '../helpers/wrangler-dev.js';

let gw: Gateway;
let work: string;

/** A valid prompt of about `bytes` bytes: text blocks hold at most 100,000 characters each. */
const big = (name: string, bytes: number) => ({
  name,
  messages: Array.from({ length: Math.ceil(bytes / 90_000) }, (_, i) => ({
    role: 'user',
    content: { type: 'text', text: `${name} ${i} `.padEnd(90_000, 'x') },
  })),
});

beforeAll(async () => {
  gw = await startGateway();
  work = mkdtempSync(join(tmpdir(), 'promptgate-push-order-'));
  // Within 1 MB of the limit, a prompt at a time (each well under one request's 5 MiB).
  const fill = MAX_CATALOG_BYTES - 1_000_000;
  for (let i = 0; i * 1_800_000 < fill; i++) {
    const res = await fetch(`${gw.url}/admin/prompts/filler_${i}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${gw.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(big(`filler_${i}`, Math.min(1_800_000, fill - i * 1_800_000))),
    });
    expect(res.status, await res.text()).toBe(200);
  }
}, 180_000);

afterAll(async () => {
  await gw?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

it('a prompt set the gateway cannot hold stops the push before its skills are published', async () => {
  const dir = join(work, 'dir');
  mkdirSync(dir);
  cpSync(join(PROJECT_ROOT, 'prompts/skills/release-notes'), join(dir, 'skills/fresh-skill'), { recursive: true });
  writeFileSync(
    join(dir, 'skills/fresh-skill/SKILL.md'),
    '---\nname: fresh-skill\ndescription: Not yet published.\n---\nBody.\n',
  );
  // One request's worth (fits 5 MiB), but past what the catalog can still hold.
  writeFileSync(join(dir, 'huge.json'), JSON.stringify(big('huge', 1_500_000)));
  const r = await runCli(gw, 'push', dir);
  expect(r.code, r.stdout).toBe(1);
  expect(r.stderr).toContain('413');
  const skill = await fetch(`${gw.url}/admin/skills/fresh-skill`, {
    headers: { authorization: `Bearer ${gw.adminToken}` },
  });
  expect(skill.status).toBe(404);
}, 120_000);
