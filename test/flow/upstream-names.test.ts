/**
 * What an upstream prompt is called while its upstream fails: the listing and every method by name
 * must agree. The last good listing of a failing upstream follows a new allow, deny or aliases at
 * once, so a prompt denied meanwhile is neither listed nor served. Listings are reported as the
 * upstreams' objects report them (no upstream is called for them); the configuration goes through
 * the admin API.
 */
import { env, SELF } from 'cloudflare:test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listing } from '../../src/catalog/listing.js';
import { catalogWriter } from '../../src/catalog/stubs.js';
import { forgetUpstreamConfig, validateUpstreams } from '../../src/catalog/upstreams/config.js';
import { reported } from '../../src/catalog/upstreams/report.js';
import type { UpstreamConfig } from '../../src/catalog/upstreams/schema.js';
import type { Principal } from '../../src/lib/scope.js';
import { modernAs, scope } from '../helpers/principals.js';
import { publish } from '../helpers/worker.js';

const V = '2026-07-28';

/** Short timeouts: a name wrongly routed to these unreachable upstreams fails fast instead of passing. */
const ENTRIES = [
  { id: 'gh', url: 'https://gh.example/mcp', timeout: 1000 },
  { id: 'hub', url: 'https://hub.example/mcp', timeout: 1000 },
];
const parsed = (e: (typeof ENTRIES)[number]): UpstreamConfig => ({
  id: e.id,
  prefix: e.id,
  url: new URL(e.url),
  timeoutMs: e.timeout,
  enabled: true,
  headers: {},
  allow: null,
  deny: [],
  aliases: {},
});

const rpc = modernAs;

/** Every name a principal's listing shows, across its pages (3 a page: vitest.config.ts). */
async function names(p?: Principal): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  do {
    const q = scope(p);
    const page = JSON.parse((await listing(q, V, cursor)).json) as { prompts: { name: string }[]; nextCursor?: string };
    await Promise.all(q.pending);
    out.push(...page.prompts.map((x) => x.name));
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

const putUpstreams = (list: unknown[]) =>
  SELF.fetch('https://gateway.test/admin/upstreams', {
    method: 'PUT',
    headers: { authorization: 'Bearer test-admin-token', 'content-type': 'application/json' },
    body: JSON.stringify(list),
  });

beforeAll(async () => {
  await publish([{ name: 'open', messages: [{ role: 'user', content: { type: 'text', text: 'open to all' } }] }]);
  // Through the admin API, so every upstream's object reads this list (their refresh fails: unreachable).
  expect((await putUpstreams(ENTRIES)).status).toBe(200);
  await catalogWriter(env).upstreamsReported([
    reported(parsed(ENTRIES[0]!), '.', { prompts: [{ name: 'x' }, { name: 'y' }] }),
    reported(parsed(ENTRIES[1]!), '.', { prompts: [{ name: 'secret' }, { name: 'plain' }] }),
  ]);
});

afterAll(async () => {
  await catalogWriter(env).setUpstreams(null);
  forgetUpstreamConfig(env);
});

describe('the last good listing of a failing upstream', () => {
  it('follows a new deny and aliases at once: a denied prompt is neither listed nor served', async () => {
    expect(await names()).toEqual(expect.arrayContaining(['hub.secret', 'hub.plain']));
    // Its listing fails now (as its object reports an HTTP 500): the last good one stays, stale.
    await catalogWriter(env).upstreamsReported([
      { id: 'hub', prefix: 'hub', error: 'http_500: upstream answered 500' },
    ]);
    expect(await names()).toEqual(expect.arrayContaining(['hub.secret', 'hub.plain']));
    const res = await putUpstreams([ENTRIES[0], { ...ENTRIES[1], deny: ['secret'], aliases: { plain: 'renamed' } }]);
    expect(res.status).toBe(200);
    const listed = await names();
    expect(listed).not.toContain('hub.secret');
    expect(listed.filter((n) => n.startsWith('hub.'))).toEqual(['hub.renamed']);
    for (const name of ['hub.secret', 'hub.plain']) {
      const got = await rpc(undefined, 'prompts/get', { name });
      expect(got.error, name).toMatchObject({ code: -32602, message: `Unknown prompt "${name}"` });
    }
  });
});

describe('an upstream mounted without a prefix', () => {
  it("never takes a name in another upstream's namespace: such a name is not listed, and never reaches it", async () => {
    // First, so it would win a name it shared with gh; unreachable like the others.
    const list = [{ id: 'ev', url: 'https://ev.example/mcp', prefix: '', timeout: 1000 }, ...ENTRIES];
    expect((await putUpstreams(list)).status).toBe(200);
    const [ev] = validateUpstreams(env, JSON.stringify(list));
    // gh's own gh.x, one it does not list, and a name of ev's own.
    await catalogWriter(env).upstreamsReported([
      reported(ev!, '.', { prompts: [{ name: 'gh.x' }, { name: 'gh.unlisted' }, { name: 'ev_own' }] }),
    ]);
    const listed = await names();
    expect(listed).toContain('ev_own');
    expect(listed.filter((n) => n.startsWith('gh.'))).toEqual(['gh.x', 'gh.y']);
    for (const name of ['gh.x', 'gh.unlisted']) {
      const got = await rpc(undefined, 'prompts/get', { name });
      expect(got.error?.message, name).toMatch(/^Upstream "gh"/);
    }
    expect((await rpc(undefined, 'prompts/get', { name: 'ev_own' })).error?.message).toMatch(/^Upstream "ev"/);
  });
});
