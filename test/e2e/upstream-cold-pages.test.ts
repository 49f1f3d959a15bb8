/**
 * End-to-end, the cold path's paging (src/catalog/upstreams/cold.ts): a real `wrangler dev` with
 * PAGE_SIZE 2 and one never-listed upstream (SDK 2.x, Skills extension) with one prompt and three
 * skills. The first `skills/list` lists the upstream from the request itself. The merged prompts fit
 * on one page but the skills do not, so the first page must come from the writer's published
 * generation, or its cursor would page a list no isolate serves. The official `SkillsClient` walks
 * every page.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { skillMd, skillsServer, type SkillsUpstream } from '../helpers/upstreams.js';
import { coldUpstreamGateway } from '../helpers/cold-upstream.js';
import type { Gateway } from '../helpers/wrangler-dev.js';

let gw: Gateway;
let upstream: SkillsUpstream;

beforeAll(async () => {
  const files = Object.fromEntries(
    ['alpha', 'beta', 'gamma'].map((name) => [`${name}/SKILL.md`, skillMd(name, `The ${name} skill`)]),
  );
  upstream = await skillsServer(files, { prompts: ['hello'] });
  // One local prompt and no local skill: the merged prompts (2) fit on a page, the skills (3) do not.
  gw = await coldUpstreamGateway([{ id: 'sk', url: upstream.url, prefix: 'sk' }], { pageSize: 2 });
}, 120_000);

afterAll(async () => {
  await gw?.stop();
  await upstream?.close();
});

it('a first skills/list that lists a never-listed upstream pages through all of its skills', async () => {
  const client = new Client({ name: 'cold-pages', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl)));
  try {
    const listing = await new SkillsClient(client).list();
    expect(listing.invalid).toEqual([]);
    const uris = listing.skills.map((s) => s.uri);
    expect(uris.sort()).toEqual(['skill://sk/alpha/SKILL.md', 'skill://sk/beta/SKILL.md', 'skill://sk/gamma/SKILL.md']);
  } finally {
    await client.close();
  }
});
