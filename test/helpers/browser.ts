/**
 * Headless Chromium for the browser suite (Node only): Debian's /usr/bin/chromium driven by
 * playwright-core, launched so it makes no request of its own (the network here is closed), with
 * axe-core injected into pages, the first load's weight, and screenshots under test/artifacts/.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type Page, type Response } from 'playwright-core';
import { PROJECT_ROOT } from './wrangler-dev.js';

/** Debian's chromium package; .ci/run installs it when missing. CHROMIUM_PATH overrides it. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = join(PROJECT_ROOT, 'test/artifacts');

/**
 * Without the background flags Chromium keeps calling Google services (component updates, sync,
 * safe browsing, variations), which on a closed network only adds noise and delay. Playwright gives
 * every launch a fresh temporary user-data dir and removes it on close.
 */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's chromium package (.ci/run does) or set CHROMIUM_PATH`,
    );
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}

/** What a page did that the catalog page must never do: requests off 127.0.0.1, CSP refusals, script errors, failed loads. */
export interface PageFaults {
  offsite: string[];
  console: string[];
}

/** A page in a fresh context that records every request off the gateway's host and every console error. */
export async function openPage(
  browser: Browser,
  opts: { colorScheme?: 'light' | 'dark' } = {},
): Promise<{ context: BrowserContext; page: Page; faults: PageFaults }> {
  const context = await browser.newContext({ colorScheme: opts.colorScheme ?? 'light', viewport: VIEWPORT });
  const page = await context.newPage();
  const faults: PageFaults = { offsite: [], console: [] };
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.protocol !== 'data:' && url.hostname !== '127.0.0.1') faults.offsite.push(r.url());
  });
  // A failed load is reported with its URL below; the browser's own favicon probe is not the page's.
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) faults.console.push(m.text());
  });
  page.on('response', (r) => {
    if (r.status() >= 400 && new URL(r.url()).pathname !== '/favicon.ico')
      faults.console.push(`HTTP ${r.status()} ${r.url()}`);
  });
  page.on('pageerror', (e) => void faults.console.push(String(e)));
  return { context, page, faults };
}

export const VIEWPORT = { width: 1280, height: 800 };

// ---------------------------------------------------------------------------
// axe-core

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core over the whole page as it is now. The source goes in through the DevTools
 * protocol (page.evaluate), which the page's own CSP does not govern, so the CSP stays as served.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) =>
    r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) })))`);
}

/** The violations that count against the page: serious and critical. */
export const seriousOrCritical = (vs: AxeViolation[]) =>
  vs.filter((v) => v.impact === 'serious' || v.impact === 'critical');

// ---------------------------------------------------------------------------
// Page weight

export interface Resource {
  url: string;
  status: number;
  encoding: string | null;
  /** Bytes as wrangler dev sent them (headers and body as transferred). */
  transferred: number;
  /** The body as decoded by the browser. */
  decoded: number;
  /** Headers plus the body compressed: as sent when the server compressed it, else gzip -6 of it (the edge compresses). */
  compressed: number;
}

export interface Weight {
  resources: Resource[];
  transferred: number;
  decoded: number;
  compressed: number;
}

/**
 * Loads `url` in a fresh page and adds up every response of that first load (the document and
 * everything it pulls in before `load`). Local `wrangler dev` may send bodies uncompressed where the
 * edge would compress them, so `compressed` counts a gzip of the body in that case.
 */
export async function firstLoadWeight(browser: Browser, url: string): Promise<Weight> {
  const { context, page } = await openPage(browser);
  const responses: Response[] = [];
  page.on('response', (r) => void responses.push(r));
  try {
    await page.goto(url, { waitUntil: 'load' });
    const resources: Resource[] = [];
    for (const r of responses) {
      const sizes = await r.request().sizes();
      const body = r.status() >= 300 && r.status() < 400 ? Buffer.alloc(0) : await r.body();
      const encoding = (await r.headerValue('content-encoding')) ?? null;
      const headers = sizes.responseHeadersSize;
      resources.push({
        url: r.url(),
        status: r.status(),
        encoding,
        transferred: headers + sizes.responseBodySize,
        decoded: body.length,
        compressed: headers + (encoding ? sizes.responseBodySize : gzipSync(body, { level: 6 }).length),
      });
    }
    const sum = (k: 'transferred' | 'decoded' | 'compressed') => resources.reduce((n, r) => n + r[k], 0);
    return { resources, transferred: sum('transferred'), decoded: sum('decoded'), compressed: sum('compressed') };
  } finally {
    await context.close();
  }
}

// ---------------------------------------------------------------------------
// Artifacts

/** Saves a full-page screenshot to test/artifacts/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Writes a JSON figure (weights, axe results) next to the screenshots, for the report. */
export function saveFigure(name: string, value: unknown): void {
  mkdirSync(ARTIFACTS, { recursive: true });
  writeFileSync(join(ARTIFACTS, `${name}.json`), JSON.stringify(value, null, 2) + '\n');
}
