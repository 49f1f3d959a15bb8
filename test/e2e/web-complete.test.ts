/**
 * A prompt page's argument autocomplete in Chromium, against a real `wrangler dev` and a scripted
 * upstream on loopback whose completions echo the value typed and may be held: typing asks once
 * the typing pauses (each request counts against the client's rate budget and reaches the
 * upstream), and a late answer for an earlier value never replaces the values for the text now
 * in the field.
 */
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchBrowser, openPage } from '../helpers/browser.js';
import { scriptedServer, type Scripted } from '../helpers/fault-servers.js';
import { waitUntil } from '../helpers/live.js';
import { startGateway, type Gateway } from '../helpers/wrangler-dev.js';

let gw: Gateway;
let browser: Browser;
let upstream: Scripted;
/** The values the upstream was asked to complete, in order. */
const asked: string[] = [];
/** A value whose completion the upstream holds until released here. */
const held = new Map<string, () => void>();
let holding: string | undefined;

beforeAll(async () => {
  upstream = await scriptedServer({
    prompts: [{ name: 'pick', arguments: [{ name: 'lang', required: true }] }],
    completion: async (_name, value) => {
      asked.push(value);
      if (value === holding) await new Promise<void>((r) => held.set(value, r));
      return { values: [`${value}-1`, `${value}-2`] };
    },
  });
  [gw, browser] = await Promise.all([
    startGateway({
      vars: {
        UPSTREAMS: JSON.stringify([{ id: 'up', url: upstream.url, prefix: 'up' }]),
        UPSTREAM_ALLOW_HTTP_LOOPBACK: 'true',
      },
    }),
    launchBrowser(),
  ]);
}, 120_000);

afterAll(async () => {
  for (const release of held.values()) release();
  await browser?.close();
  await gw?.stop();
  await upstream?.close();
});

const completed = (r: Request) => {
  const url = new URL(r.url());
  return url.pathname === '/p/up.pick/complete' ? url.searchParams.get('value') : null;
};
const offered = (page: Page) =>
  page.locator('#values-lang option').evaluateAll((os) => os.map((o) => o.getAttribute('value')));

it('typing a word asks for its completions once, for the word typed', async () => {
  const { context, page, faults } = await openPage(browser);
  try {
    const sent: string[] = [];
    page.on('request', (r) => void (completed(r) !== null && sent.push(completed(r)!)));
    await page.goto(`${gw.url}/p/up.pick`);
    await page.locator('input[data-argument="lang"]').pressSequentially('abcdef');
    await expect.poll(() => offered(page)).toEqual(['abcdef-1', 'abcdef-2']);
    expect(sent).toEqual(['abcdef']);
    expect(faults.console).toEqual([]);
  } finally {
    await context.close();
  }
});

it("a late answer for an earlier value does not replace the current value's completions", async () => {
  const { context, page } = await openPage(browser);
  holding = 'x';
  try {
    await page.goto(`${gw.url}/p/up.pick`);
    const input = page.locator('input[data-argument="lang"]');
    const ended = new Promise<void>((resolve) => {
      const end = (r: Request) => void (completed(r) === 'x' && resolve());
      page.on('requestfinished', end);
      page.on('requestfailed', end);
    });
    await input.pressSequentially('x');
    await waitUntil(() => held.has('x'), "the upstream holding x's completion");
    await input.pressSequentially('y');
    await expect.poll(() => offered(page)).toEqual(['xy-1', 'xy-2']);
    // Only now does the answer for x come back (or find its request gone).
    held.get('x')!();
    await ended;
    await page.waitForTimeout(500);
    expect(await offered(page)).toEqual(['xy-1', 'xy-2']);
    expect(asked).toContain('xy');
  } finally {
    holding = undefined;
    await context.close();
  }
});
