/**
 * The catalog page's API-key form in a real browser (headless Chromium) against a `wrangler dev`
 * that asks for a credential (AUTH=apikey): a refused key is said to be refused and is not kept,
 * an accepted one shows the catalog, and stays for the tab's next page loads; an answer that does
 * not judge the key (a limit, an outage, a fault) is said so, and leaves the page and the key.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openPage } from '../helpers/browser.js';
import { startGateway, type Gateway } from '../helpers/wrangler-dev.js';

let gw: Gateway;
let browser: Browser;
let key: string;

beforeAll(async () => {
  [gw, browser] = await Promise.all([startGateway({ vars: { AUTH: 'apikey' } }), launchBrowser()]);
  const res = await fetch(`${gw.url}/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'web-key-e2e' }),
  });
  expect(res.status).toBe(201);
  key = ((await res.json()) as { key: string }).key;
});

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

describe('the API-key form', () => {
  it('says a refused key was not accepted and forgets it; an accepted key shows the catalog and is kept', async () => {
    const { context, page, faults } = await openPage(browser);
    try {
      await page.goto(`${gw.url}/`);
      await expect.poll(() => page.locator('#key-form').count()).toBe(1);
      expect(await page.locator('#prompts > li.prompt').count()).toBe(0);

      await page.fill('#api-key', `pg_${'A'.repeat(43)}`);
      await page.click('#key-form button[type=submit]');
      await expect.poll(() => page.locator('#key-error').textContent()).toBe('That key was not accepted.');
      expect(await page.locator('#key-error').isHidden()).toBe(false);
      expect(await page.evaluate<number>('sessionStorage.length')).toBe(0);

      await page.fill('#api-key', key);
      await page.click('#key-form button[type=submit]');
      await expect.poll(() => page.locator('#prompts > li.prompt').count()).toBeGreaterThan(0);
      expect(await page.locator('#key-form').count()).toBe(0);

      // The tab keeps the key: the next load shows the catalog again, without asking.
      await page.reload();
      await expect.poll(() => page.locator('#prompts > li.prompt').count()).toBeGreaterThan(0);
      expect(faults.offsite).toEqual([]);
      expect(faults.console.filter((m) => !m.includes('HTTP 401'))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('says when the gateway could not judge a key (429, 503, 500), keeps the page and the key', async () => {
    const { context, page, faults } = await openPage(browser);
    try {
      await page.goto(`${gw.url}/`);
      await expect.poll(() => page.locator('#key-form').count()).toBe(1);
      // The page's own request with the key is answered as a limit, an outage, then a fault would answer it.
      const answers: { status: number; headers: Record<string, string>; said: string }[] = [
        { status: 429, headers: { 'retry-after': '7' }, said: 'The gateway answered 429; try again in 7 s.' },
        { status: 503, headers: {}, said: 'The gateway answered 503; try again shortly.' },
        { status: 500, headers: {}, said: 'The gateway answered 500; try again shortly.' },
      ];
      for (const a of answers) {
        await page.route(`${gw.url}/`, (route) =>
          route.request().headers().authorization
            ? route.fulfill({
                status: a.status,
                headers: { 'content-type': 'application/json', ...a.headers },
                body: JSON.stringify({ error: { code: 'rate_limited', message: 'Too Many Requests' } }),
              })
            : route.continue(),
        );
        await page.fill('#api-key', key);
        await page.click('#key-form button[type=submit]');
        await expect.poll(() => page.locator('#key-error').textContent()).toBe(a.said);
        expect(await page.locator('#key-error').isHidden()).toBe(false);
        // The page stays as it was: no JSON in place of the body.
        expect(await page.locator('#key-form').count()).toBe(1);
        expect(await page.locator('body').textContent()).not.toContain('rate_limited');
        // Not refused: the key stays for the next try.
        expect(await page.evaluate<string | null>("sessionStorage.getItem('promptgate-key')")).toBe(key);
        await page.unroute(`${gw.url}/`);
      }

      // The kept key is tried again on the next load, and the gateway now accepts it.
      await page.reload();
      await expect.poll(() => page.locator('#prompts > li.prompt').count()).toBeGreaterThan(0);
      expect(faults.offsite).toEqual([]);
      expect(faults.console.filter((m) => !/HTTP (401|429|503|500)/.test(m))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
