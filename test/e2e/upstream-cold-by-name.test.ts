/**
 * End-to-end, names of an upstream's prompts, against a real `wrangler dev` and the scripted
 * upstream of test/helpers/fault-servers.ts, which answers prompts/get for any name:
 * - `GET /prompts/{name}` for a prompt of an upstream no isolate has listed yet lists never-listed
 *   upstreams before it answers, as `GET /prompts`, `prompts/get` and the catalog pages do, so a
 *   name the list shows is never a 404 by name (the gateway's first request is that GET);
 * - a name the upstream answers but never listed is served, and counted as `(unknown)`: names a
 *   client makes up never become usage rows, however the upstream answers them.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { waitUntil } from '../helpers/live.js';
import { modernPost } from '../helpers/protocol.js';
import { scriptedServer, type Scripted } from '../helpers/fault-servers.js';
import { coldUpstreamGateway } from '../helpers/cold-upstream.js';
import type { Gateway } from '../helpers/wrangler-dev.js';

let gw: Gateway;
let upstream: Scripted;
/** The ETag of the first answer, made from the cold merge: its generation is the one before the upstream was listed. */
let coldTag = '';
const generationOf = (etag: string | null) => Number(/^"g(\d+)-/.exec(etag ?? '')?.[1] ?? 0);

beforeAll(async () => {
  upstream = await scriptedServer({ prompts: [{ name: 'review', description: 'Review a change' }], getAnyName: true });
  gw = await coldUpstreamGateway([{ id: 'up', url: upstream.url, prefix: 'up' }], { vars: { USAGE_FLUSH_MS: 50 } });
}, 120_000);

afterAll(async () => {
  await gw?.stop();
  await upstream?.close();
});

it('the first request, GET /prompts/up.review, lists the never-listed upstream and answers the prompt', async () => {
  expect(upstream.seen.filter((r) => r.rpc === 'prompts/list')).toEqual([]);
  const res = await fetch(`${gw.url}/prompts/up.review`);
  const body = await res.text();
  expect(res.status, body).toBe(200);
  expect(JSON.parse(body).prompt).toMatchObject({ name: 'up.review', description: 'Review a change' });
  coldTag = res.headers.get('etag') ?? '';
  // A name no upstream has is still unknown, after the upstream was listed.
  expect((await fetch(`${gw.url}/prompts/up.nothing`)).status).toBe(404);
  const list = (await (await fetch(`${gw.url}/prompts`)).json()) as { prompts: { name: string }[] };
  expect(list.prompts.map((p) => p.name).sort()).toEqual(['summarize', 'up.review']);
});

it('names the upstream answers but never listed are served, and counted as (unknown), never as rows of their own', async () => {
  const get = async (name: string) => {
    const res = await fetch(gw.mcpUrl, modernPost('prompts/get', { name }).init);
    const body = (await res.json()) as { result?: { messages: unknown[] }; error?: unknown };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.result?.messages, JSON.stringify(body)).toHaveLength(1);
  };
  // Counting reads the catalog this isolate serves: wait until it holds the writer's listing, not the cold merge.
  await waitUntil(
    async () => generationOf((await fetch(`${gw.url}/prompts/up.review`)).headers.get('etag')) > generationOf(coldTag),
    "the writer's listing in this isolate",
  );
  for (let i = 0; i < 3; i++) await get(`up.made-up-${i}`);
  await get('up.review');
  let got: { key: string; method: string; count: number }[] = [];
  const counted = () => got.reduce((n, r) => n + (r.method === 'prompts/get' ? r.count : 0), 0);
  await waitUntil(async () => {
    const res = await fetch(`${gw.url}/admin/usage?by=prompt`, {
      headers: { authorization: `Bearer ${gw.adminToken}` },
    });
    got = ((await res.json()) as { rows: typeof got }).rows;
    return counted() >= 4;
  }, 'four counted gets');
  const gets = Object.fromEntries(got.filter((r) => r.method === 'prompts/get').map((r) => [r.key, r.count]));
  expect(gets).toEqual({ '(unknown)': 3, 'up.review@up': 1 });
});
