/**
 * End-to-end, `GET /prompts/{name}` for a prompt of an upstream no isolate has listed yet: the
 * route lists never-listed upstreams before it answers, as `GET /prompts`, `prompts/get` and the
 * catalog pages do, so a name the list shows is never a 404 by name. A real `wrangler dev` whose
 * first request is that GET, against the scripted upstream of test/helpers/fault-servers.ts.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { scriptedServer, type Scripted } from '../helpers/fault-servers.js';
import { coldUpstreamGateway } from '../helpers/cold-upstream.js';
import type { Gateway } from '../helpers/wrangler-dev.js';

let gw: Gateway;
let upstream: Scripted;

beforeAll(async () => {
  upstream = await scriptedServer({ prompts: [{ name: 'review', description: 'Review a change' }] });
  gw = await coldUpstreamGateway([{ id: 'up', url: upstream.url, prefix: 'up' }]);
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
  // A name no upstream has is still unknown, after the upstream was listed.
  expect((await fetch(`${gw.url}/prompts/up.nothing`)).status).toBe(404);
  const list = (await (await fetch(`${gw.url}/prompts`)).json()) as { prompts: { name: string }[] };
  expect(list.prompts.map((p) => p.name).sort()).toEqual(['summarize', 'up.review']);
});
