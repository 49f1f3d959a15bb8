/**
 * The catalog page in a real browser: headless Chromium (Debian's package, driven by playwright-core)
 * against a real `wrangler dev` seeded with the project's prompts/. It follows the DOM contract in
 * docs/web-catalog.md: search, tag filter, a prompt's preview with substituted arguments and an
 * image, install links, a CLI publish after a reload, keyboard-only use, axe-core in light and dark,
 * and the first load's weight. Screenshots and figures go to test/artifacts/ (git-ignored).
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadValidDir } from '../../cli/fs-source.js';
import {
  axeViolations,
  firstLoadWeight,
  launchBrowser,
  openPage,
  saveFigure,
  screenshot,
  seriousOrCritical,
  type PageFaults,
} from '../helpers/browser.js';
import { runCli } from '../helpers/cli.js';
import { feedQuiet } from '../helpers/live.js';
import { PROJECT_ROOT, startGateway, type Gateway } from '../helpers/wrangler-dev.js';

const PROMPTS_DIR = join(PROJECT_ROOT, 'prompts');
const SEEDED = loadValidDir(PROMPTS_DIR).records;
const WEIGHT_BUDGET = 60 * 1024;
/** Bounds the Tab presses that reach a control: a page that needs more is not keyboard-friendly (and a loop must end). */
const MAX_TABS = 40;

let gw: Gateway;
let browser: Browser;

beforeAll(async () => {
  // CATALOG_REFRESH_MS=0: the isolate checks the generation on every page, so one reload after a
  // publish must show it (no wait for the refresh interval).
  [gw, browser] = await Promise.all([startGateway({ vars: { CATALOG_REFRESH_MS: 0 } }), launchBrowser()]);
  await feedQuiet(gw.url);
});

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

/** The names of the list items shown now (not `hidden`), in page order. */
const shown = (page: Page) =>
  page.locator('#prompts > li.prompt:not([hidden])').evaluateAll((els) => els.map((e) => e.getAttribute('data-name')));

const focusedSelector = (page: Page) =>
  page.evaluate<string>(`(() => {
    const e = document.activeElement;
    if (!e || e === document.body) return '';
    return e.id ? '#' + e.id : e.tagName.toLowerCase() + (e.getAttribute('name') ? '[name=' + e.getAttribute('name') + ']' : '')
      + (e.getAttribute('href') ? '[href=' + e.getAttribute('href') + ']' : '');
  })()`);

/** Presses Tab until `selector` has the focus; fails after MAX_TABS presses. */
async function tabTo(page: Page, selector: string): Promise<number> {
  for (let n = 1; n <= MAX_TABS; n++) {
    await page.keyboard.press('Tab');
    if (await page.locator(selector).evaluate((e) => e === e.ownerDocument.activeElement)) return n;
  }
  throw new Error(`${selector} never took the focus in ${MAX_TABS} Tab presses (last: ${await focusedSelector(page)})`);
}

/** Nothing off 127.0.0.1, no CSP refusal, no script error. */
function expectClean(faults: PageFaults): void {
  expect(faults.offsite).toEqual([]);
  expect(faults.console).toEqual([]);
}

describe('the catalog page in Chromium', () => {
  it('follows the DOM contract of docs/web-catalog.md', async () => {
    const { context, page, faults } = await openPage(browser);
    try {
      await page.goto(`${gw.url}/`);
      const index = [
        'form#filters[method="get"] input[type="search"]#search[name="q"]',
        'form#filters select#tag[name="tag"]',
        'form#filters select#source[name="source"]',
        `ul#prompts > li.prompt[data-name="ui_review"][data-source="local"][data-tags*='"design"'] a[href="/p/ui_review"]`,
        'li.prompt[data-name="ui_review"] svg.spark',
        'p#count',
        'section#connect a#install-vscode',
        'section#connect a#install-cursor',
        'section#connect code#cmd-claude-code',
        'section#connect pre#config-claude-desktop',
        'section#connect code#cmd-inspector',
        'section#health[data-generation]',
        'span#changed-badge[hidden]',
        'button#theme',
      ];
      for (const sel of index) expect(await page.locator(sel).count(), sel).toBe(1);
      await page.goto(`${gw.url}/p/ui_review`);
      const prompt = [
        'table#arguments tr[data-argument="focus"]',
        'table#arguments tr[data-argument="context"]',
        'form#args[method="get"] input[name="arg:focus"][list="values-focus"]',
        'form#args datalist#values-focus',
        'form#args input[name="arg:context"][list="values-context"]',
        'form#args button[type="submit"]#render',
        'section#preview',
        'button#copy',
        'time#changed',
      ];
      for (const sel of prompt) expect(await page.locator(sel).count(), sel).toBe(1);
      // Allowed values come from completion/complete.
      await expect
        .poll(() => page.locator('#values-focus option').evaluateAll((os) => os.map((o) => o.getAttribute('value'))))
        .toEqual(expect.arrayContaining(['accessibility', 'layout', 'visual-hierarchy', 'consistency']));
      expectClean(faults);
    } finally {
      await context.close();
    }
  });

  it('browsing works without JavaScript: the filter form searches on the server', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.goto(`${gw.url}/`);
      await page.locator('#search').fill('postmortem');
      await Promise.all([page.waitForURL(/\?q=postmortem/), page.locator('#search').press('Enter')]);
      expect(await shown(page)).toEqual(['incident_postmortem']);
      await page.goto(`${gw.url}/?tag=writing`);
      expect(new Set(await shown(page))).toEqual(
        new Set(SEEDED.filter((p) => p.tags?.includes('writing')).map((p) => p.name)),
      );
      await page.goto(`${gw.url}/p/ui_review?focus=consistency&render=1`);
      expect((await page.locator('#preview pre.text').allTextContents()).join('\n')).toContain(
        'Review focus: consistency',
      );
    } finally {
      await context.close();
    }
  });

  it('lists every seeded prompt with its slash command, and search narrows the list', async () => {
    const { context, page, faults } = await openPage(browser);
    try {
      await page.goto(`${gw.url}/`);
      expect(new Set(await shown(page))).toEqual(new Set(SEEDED.map((p) => p.name)));
      expect(await page.locator('li.prompt[data-name="ui_review"] code.slash').textContent()).toBe('/ui_review');

      // By name, then by a word only in a description, then by a tag; the count follows.
      await page.locator('#search').fill('postmortem');
      await expect.poll(() => shown(page)).toEqual(['incident_postmortem']);
      await expect.poll(() => page.locator('#count').textContent()).toMatch(/\b1\b/);
      await page.locator('#search').fill('mockup');
      await expect.poll(() => shown(page)).toEqual(['ui_review']);
      await page.locator('#search').fill('on-call');
      await expect
        .poll(async () => new Set(await shown(page)))
        .toEqual(new Set(SEEDED.filter((p) => p.tags?.includes('on-call')).map((p) => p.name)));
      await page.locator('#search').fill('no prompt is called this');
      await expect.poll(() => shown(page)).toEqual([]);
      await page.locator('#search').fill('');
      await expect.poll(async () => (await shown(page)).length).toBe(SEEDED.length);
      expectClean(faults);
    } finally {
      await context.close();
    }
  });

  it('the tag filter shows exactly the prompts with that tag', async () => {
    const { context, page, faults } = await openPage(browser);
    try {
      await page.goto(`${gw.url}/`);
      for (const tag of ['review', 'writing']) {
        await page.locator('#tag').selectOption(tag);
        const expected = SEEDED.filter((p) => p.tags?.includes(tag)).map((p) => p.name);
        expect(expected.length).toBeGreaterThan(1);
        await expect.poll(async () => new Set(await shown(page))).toEqual(new Set(expected));
      }
      // Tag and search together: both apply.
      await page.locator('#search').fill('commit');
      await expect.poll(() => shown(page)).toEqual(['commit_message']);
      expectClean(faults);
    } finally {
      await context.close();
    }
  });

  it('a prompt’s preview shows the substituted arguments and the image', async () => {
    const { context, page, faults } = await openPage(browser);
    try {
      await page.goto(`${gw.url}/p/ui_review`);
      await expect.poll(() => page.locator('#arguments tr[data-argument]').count()).toBe(2);
      await page.locator('#args input[name="arg:focus"]').fill('layout');
      await page.locator('#args input[name="arg:context"]').fill('order dashboard for warehouse staff');
      await page.locator('#render').click();
      const text = page.locator('#preview .message[data-role="user"] pre.text');
      await text.first().waitFor();
      const all = (await text.allTextContents()).join('\n');
      expect(all).toContain('Review focus: layout');
      expect(all).toContain('Context: order dashboard for warehouse staff');
      expect(all).not.toContain('{{');
      // The mockup: an image that actually decoded.
      const img = page.locator('#preview .message[data-role="user"] img.image');
      await img.waitFor();
      await expect
        .poll(() => img.evaluate((e) => (e as unknown as { naturalWidth: number }).naturalWidth))
        .toBeGreaterThan(0);
      expectClean(faults);
    } finally {
      await context.close();
    }
  });

  it('the install links and commands carry the gateway’s real /mcp URL', async () => {
    const { context, page, faults } = await openPage(browser);
    try {
      await page.goto(`${gw.url}/`);
      const mcp = `${gw.url}/mcp`;
      for (const id of ['install-vscode', 'install-cursor']) {
        const href = (await page.locator(`#${id}`).getAttribute('href'))!;
        expect(decodedUrls(href), `${id}: ${href}`).toContain(mcp);
      }
      expect(await page.locator('#install-vscode').getAttribute('href')).toMatch(/^vscode:mcp\/install\?/);
      expect(await page.locator('#install-cursor').getAttribute('href')).toMatch(
        /^cursor:\/\/anysphere\.cursor-deeplink\/mcp\/install\?/,
      );
      const claudeCode = (await page.locator('#cmd-claude-code').textContent())!;
      expect(claudeCode).toMatch(/^claude mcp add --transport http \S+ /);
      expect(claudeCode.trim().endsWith(mcp)).toBe(true);
      expect(JSON.stringify(JSON.parse((await page.locator('#config-claude-desktop').textContent())!))).toContain(
        JSON.stringify(mcp),
      );
      expect(await page.locator('#cmd-inspector').textContent()).toContain(mcp);
      expectClean(faults);
    } finally {
      await context.close();
    }
  });

  it('works from the keyboard alone: search, open a prompt, fill the form, render', async () => {
    const { context, page, faults } = await openPage(browser);
    try {
      await page.goto(`${gw.url}/`);
      await tabTo(page, '#search');
      await page.keyboard.type('ui_review');
      await expect.poll(() => shown(page)).toEqual(['ui_review']);
      await tabTo(page, 'li.prompt[data-name="ui_review"] a[href="/p/ui_review"]');
      await Promise.all([page.waitForURL(`${gw.url}/p/ui_review`), page.keyboard.press('Enter')]);
      await tabTo(page, '#args input[name="arg:focus"]');
      await page.keyboard.type('accessibility');
      await tabTo(page, '#args input[name="arg:context"]');
      await page.keyboard.type('keyboard only');
      await tabTo(page, '#render');
      await page.keyboard.press('Enter');
      await expect
        .poll(async () => (await page.locator('#preview pre.text').allTextContents()).join('\n'))
        .toContain('Review focus: accessibility');
      expectClean(faults);
    } finally {
      await context.close();
    }
  });
});

describe('accessibility, screenshots and weight', () => {
  const results: Record<string, unknown> = {};

  afterAll(() => saveFigure('axe', results));

  for (const scheme of ['light', 'dark'] as const) {
    it(`axe-core finds no serious or critical violation on the index and a prompt page (${scheme})`, async () => {
      const { context, page, faults } = await openPage(browser, { colorScheme: scheme });
      try {
        await page.goto(`${gw.url}/`);
        await page.locator('#prompts li.prompt').first().waitFor();
        const index = await axeViolations(page);
        await screenshot(page, `index-${scheme}`);

        await page.goto(`${gw.url}/p/ui_review?focus=layout&context=warehouse&render=1`);
        await page.locator('#preview .message').first().waitFor();
        const prompt = await axeViolations(page);
        await screenshot(page, `prompt-${scheme}`);

        results[scheme] = { index, prompt };
        expect(seriousOrCritical(index)).toEqual([]);
        expect(seriousOrCritical(prompt)).toEqual([]);
        expectClean(faults);
      } finally {
        await context.close();
      }
    });
  }

  it('the theme button switches between light and dark', async () => {
    const { context, page } = await openPage(browser, { colorScheme: 'light' });
    try {
      await page.goto(`${gw.url}/`);
      const theme = () => page.evaluate<string | null>('document.documentElement.getAttribute("data-theme")');
      await page.locator('#theme').click();
      await expect.poll(theme).toBe('dark');
      expect(seriousOrCritical(await axeViolations(page))).toEqual([]);
      await page.locator('#theme').click();
      await expect.poll(theme).toBe('light');
    } finally {
      await context.close();
    }
  });

  it(`the first load weighs at most ${WEIGHT_BUDGET / 1024} KB compressed`, async () => {
    const index = await firstLoadWeight(browser, `${gw.url}/`);
    const prompt = await firstLoadWeight(browser, `${gw.url}/p/ui_review`);
    saveFigure('weight', { index, prompt });
    // The document, its stylesheet and its script at least.
    expect(index.resources.length).toBeGreaterThanOrEqual(3);
    expect(index.compressed).toBeLessThanOrEqual(WEIGHT_BUDGET);
    expect(prompt.compressed).toBeLessThanOrEqual(WEIGHT_BUDGET);
  });
});

// Last: it changes the catalog the other tests (and the screenshots) show.
describe('a change to the catalog', () => {
  it('a publish made with the CLI shows up after a reload, and the page notices the change', async () => {
    const work = mkdtempSync(join(tmpdir(), 'promptgate-web-'));
    const { context, page, faults } = await openPage(browser);
    try {
      cpSync(PROMPTS_DIR, work, { recursive: true });
      writeFileSync(
        join(work, 'browser_fresh.md'),
        '---\nname: browser_fresh\ndescription: Published by the browser suite.\ntags: [fresh]\n---\n\n## user\n\nHello.\n',
      );
      // The page's own clock, so its periodic check for a newer catalog runs when the test says.
      await page.clock.install();
      await page.goto(`${gw.url}/`);
      expect(await page.locator('li.prompt[data-name="browser_fresh"]').count()).toBe(0);
      expect(await page.locator('#changed-badge[hidden]').count()).toBe(1);
      const pushed = await runCli(gw, 'push', work);
      expect(pushed.code, pushed.stderr).toBe(0);
      await feedQuiet(gw.url);
      // Past any polling interval the page may use (its script checks every 30 s).
      await page.clock.fastForward('05:00');
      await page.locator('#changed-badge').waitFor({ state: 'visible' });
      await page.reload();
      // One reload, no retry: the page must serve the new generation at once.
      expect(await page.locator('li.prompt[data-name="browser_fresh"]').isVisible()).toBe(true);
      expect(await page.locator('#changed-badge[hidden]').count()).toBe(1);
      expectClean(faults);
    } finally {
      await context.close();
      rmSync(work, { recursive: true, force: true });
    }
  });
});

/** Every string an install link carries, decoded (URL-encoding, and base64 for Cursor's `config`). */
function decodedUrls(href: string): string {
  const parts = [decodeURIComponent(href)];
  const query = href.includes('?') ? new URLSearchParams(href.slice(href.indexOf('?') + 1)) : new URLSearchParams();
  for (const [, v] of query) {
    parts.push(v);
    if (/^[A-Za-z0-9+/=_-]+$/.test(v) && v.length >= 8) parts.push(Buffer.from(v, 'base64').toString('utf8'));
  }
  return parts.join('\n');
}
