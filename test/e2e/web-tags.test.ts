/**
 * The index's tag filter in Chromium against a real `wrangler dev`: tags are any strings (spaces,
 * quotes, markup characters, unicode in either normal form), and the script's filter must show
 * exactly what the no-JavaScript `/?tag=` filter shows for every tag the select offers.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchBrowser, openPage } from '../helpers/browser.js';
import { startGateway, type Gateway } from '../helpers/wrangler-dev.js';

/** Each prompt's tags; `a b` must not match `a`, and the two spellings of café are different tags. */
const TAGGED: Record<string, string[]> = {
  tag_x: ['code review'],
  tag_y: ['a b'],
  tag_z: ['a'],
  tag_quotes: ['say "hi"', "it's", '<b>&amp;</b>'],
  tag_unicode: ['日本語', 'caf\u00e9', 'two  spaces'],
  tag_nfd: ['cafe\u0301', '\tpadded '],
};

let gw: Gateway;
let browser: Browser;

beforeAll(async () => {
  [gw, browser] = await Promise.all([startGateway({ vars: { CATALOG_REFRESH_MS: 0 } }), launchBrowser()]);
  for (const [name, tags] of Object.entries(TAGGED)) {
    const res = await fetch(`${gw.url}/admin/prompts/${name}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${gw.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, tags, messages: [{ role: 'user', content: { type: 'text', text: 'Hi.' } }] }),
    });
    expect(res.status, await res.text()).toBe(200);
  }
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

const shown = (page: Page) =>
  page
    .locator('#prompts > li.prompt:not([hidden])')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-name') ?? '').sort());

it('a tag with spaces, quotes or unicode filters in the browser as /?tag= does without JavaScript', async () => {
  const { context, page, faults } = await openPage(browser);
  const plain = await browser.newContext({ javaScriptEnabled: false });
  try {
    const noScript = await plain.newPage();
    await page.goto(`${gw.url}/`);
    const total = await page.locator('#prompts > li.prompt').count();
    expect(total).toBeGreaterThan(Object.keys(TAGGED).length);

    // The cases of the review, said outright.
    await page.locator('#tag').selectOption('code review');
    expect(await shown(page)).toEqual(['tag_x']);
    await expect.poll(() => page.locator('#count').textContent()).toBe(`1 of ${total} prompts`);
    await page.locator('#tag').selectOption('a');
    expect(await shown(page)).toEqual(['tag_z']);
    await page.locator('#tag').selectOption('caf\u00e9');
    expect(await shown(page)).toEqual(['tag_unicode']);
    // A tag with blanks at its ends is a tag like any other, in either filter.
    await page.locator('#tag').selectOption('\tpadded ');
    expect(await shown(page)).toEqual(['tag_nfd']);
    await noScript.goto(`${gw.url}/?tag=${encodeURIComponent('\tpadded ')}`);
    expect(await shown(noScript)).toEqual(['tag_nfd']);

    // Every tag offered, against the server's filter of the same value.
    const values = await page
      .locator('#tag option')
      .evaluateAll((os) => os.map((o) => (o as Element & { value: string }).value));
    for (const t of Object.values(TAGGED).flat()) expect(values).toContain(t);
    for (const [i, value] of values.entries()) {
      await page.locator('#tag').selectOption({ index: i });
      await noScript.goto(`${gw.url}/?tag=${encodeURIComponent(value)}`);
      expect(await shown(page), JSON.stringify(value)).toEqual(await shown(noScript));
      expect(await page.locator('#count').textContent(), JSON.stringify(value)).toBe(
        await noScript.locator('#count').textContent(),
      );
    }
    expect(faults.console).toEqual([]);
  } finally {
    await plain.close();
    await context.close();
  }
});
