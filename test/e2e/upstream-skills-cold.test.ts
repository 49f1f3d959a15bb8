/**
 * End-to-end, an upstream skill file read before any isolate or the writer has listed its upstream
 * (a new upstream, the gateway's first request): the read lists the upstream on the way (cold
 * merge, upstreams/cold.ts), and the bytes are still held to the digest that merge listed, not let
 * through because the stored catalog has no listing to check them against.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { coldUpstreamGateway } from '../helpers/cold-upstream.js';
import { skillMd, skillsServer, type SkillsUpstream } from '../helpers/upstreams.js';
import type { Gateway } from '../helpers/wrangler-dev.js';

let gw: Gateway;
let upstream: SkillsUpstream;

beforeAll(async () => {
  upstream = await skillsServer({
    'review/SKILL.md': skillMd('review', 'Reviews pull requests'),
    'review/references/GUIDE.md': '# Review guide\n',
  });
  gw = await coldUpstreamGateway([{ id: 'github', url: upstream.url, prefix: 'gh' }]);
}, 120_000);

afterAll(async () => {
  await gw?.stop();
  await upstream?.close();
});

it('a first read of a never-listed upstream skill file refuses bytes that fail the listed digest', async () => {
  expect(upstream.calls.skillsList).toBe(0);
  upstream.setTampered('# not what was listed\n');
  const client = new Client({ name: 'cold-skills', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl)));
    const err = await client.readResource({ uri: 'skill://gh/review/references/GUIDE.md' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: -32603, message: expect.stringContaining('listed digest') });
    // The read itself listed the upstream: nothing had before it.
    expect(upstream.calls.skillsList).toBeGreaterThan(0);
  } finally {
    upstream.setTampered(undefined);
    await client.close();
  }
});
