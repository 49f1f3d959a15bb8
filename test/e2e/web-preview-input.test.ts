/**
 * The web preview of an upstream prompt that answers prompts/get with `input_required` and a
 * requestState only (2026-07-28 multi-round-trip requests): no messages, and the page has no client
 * to give the input. The fragment and the server-rendered page say so, answered like any other
 * preview error, never a 500. A real `wrangler dev` against a scripted upstream on loopback.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { scriptedServer, type Scripted } from '../helpers/fault-servers.js';
import { startGateway, type Gateway } from '../helpers/wrangler-dev.js';

let gw: Gateway;
let upstream: Scripted;
const HTML = { headers: { accept: 'text/html' } };

beforeAll(async () => {
  upstream = await scriptedServer({
    prompts: [{ name: 'asks' }, { name: 'plain' }],
    getResult: (name) =>
      name === 'asks'
        ? { resultType: 'input_required', requestState: 's' }
        : { messages: [{ role: 'user', content: { type: 'text', text: `scripted ${name}` } }] },
  });
  gw = await startGateway({
    vars: {
      UPSTREAMS: JSON.stringify([{ id: 'up', url: upstream.url, prefix: 'up' }]),
      UPSTREAM_ALLOW_HTTP_LOOPBACK: 'true',
    },
  });
}, 120_000);

afterAll(async () => {
  await gw?.stop();
  await upstream?.close();
});

it('a prompt that needs input answers the preview with an error, as other preview errors are', async () => {
  const fragment = await fetch(`${gw.url}/p/up.asks/preview`, HTML);
  const text = await fragment.text();
  expect(fragment.status, text).toBe(200);
  expect(text).toBe(
    '<p class="error" role="alert">This prompt needs input the web preview cannot give: use it from an MCP client.</p>',
  );
  const page = await fetch(`${gw.url}/p/up.asks?render=1`, HTML);
  const html = await page.text();
  expect(page.status, html).toBe(200);
  expect(html).toContain('This prompt needs input the web preview cannot give');
  // The upstream's ordinary prompt still previews as its messages.
  expect(await (await fetch(`${gw.url}/p/up.plain/preview`, HTML)).text()).toContain('scripted plain');
  expect(upstream.seen.filter((r) => r.rpc === 'prompts/get' && r.name === 'asks').length).toBe(2);
});
