/**
 * Web pages of upstream prompts, against a real `wrangler dev` and a scripted upstream on loopback:
 * - a prompt that answers prompts/get with `input_required` and a requestState only (2026-07-28
 *   multi-round-trip requests) has no messages, and the page has no client to give the input. The
 *   fragment and the server-rendered page say so, answered like any other preview error, never a 500;
 * - a page built while the upstream's completion failed is served to that request only, so its
 *   arguments' allowed values come back with the upstream, not an hour later.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { scriptedServer, type Scripted } from '../helpers/fault-servers.js';
import { startGateway, type Gateway } from '../helpers/wrangler-dev.js';

let gw: Gateway;
let upstream: Scripted;
let completionDown = false;
const HTML = { headers: { accept: 'text/html' } };

beforeAll(async () => {
  upstream = await scriptedServer({
    prompts: [
      { name: 'asks' },
      { name: 'plain' },
      { name: 'pick', arguments: [{ name: 'lang', required: true }] },
      { name: 'strict', arguments: [{ name: 'lang', required: true }] },
    ],
    completeStatus: () => (completionDown ? 500 : undefined),
    completeError: (name) => (name === 'strict' ? { code: -32602, message: 'no completion for lang' } : undefined),
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

it("a page built while the upstream's completion failed is not kept: the allowed values return with the upstream", async () => {
  const row = async () => {
    const res = await fetch(`${gw.url}/p/up.pick`, HTML);
    const html = await res.text();
    expect(res.status, html).toBe(200);
    return /<td>(one, two|any)<\/td>/.exec(html)?.[1];
  };
  completionDown = true;
  try {
    expect(await row()).toBe('any');
  } finally {
    completionDown = false;
  }
  expect(await row()).toBe('one, two');
  // That page is kept: the next request is not asked of the upstream.
  const asked = upstream.seen.filter((r) => r.rpc === 'completion/complete').length;
  expect(await row()).toBe('one, two');
  expect(upstream.seen.filter((r) => r.rpc === 'completion/complete').length).toBe(asked);
});

it("an upstream's invalid-params answer to a completion is settled: the page shows any value, and is kept", async () => {
  const asked = () => upstream.seen.filter((r) => r.rpc === 'completion/complete' && r.name === 'strict').length;
  const row = async () =>
    /<td>(any|one, two)<\/td>/.exec(await (await fetch(`${gw.url}/p/up.strict`, HTML)).text())?.[1];
  expect(await row()).toBe('any');
  const once = asked();
  expect(once).toBeGreaterThan(0);
  expect(await row()).toBe('any');
  expect(asked()).toBe(once);
});
