/**
 * End-to-end, an MCP client running in a browser page on another origin (as the MCP Inspector
 * does): headless Chromium, a page served from its own port, and a real `wrangler dev` whose
 * ALLOWED_ORIGINS names that page's origin alone. The browser itself enforces CORS here: the
 * preflight, the exposed Mcp-Session-Id header, and a redirect (`/mcp/` → `/mcp`) that must
 * carry CORS headers of its own for the page to follow it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { startGateway, type Gateway } from '../helpers/wrangler-dev.js';

let gw: Gateway;
let browser: Browser;
let allowed: Server;
let refused: Server;

/** A blank page at its own origin (no CSP), from which the test's script calls the gateway. */
async function servePage(): Promise<Server> {
  const server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html>'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const originOf = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

beforeAll(async () => {
  [allowed, refused] = await Promise.all([servePage(), servePage()]);
  [gw, browser] = await Promise.all([startGateway({ vars: { ALLOWED_ORIGINS: originOf(allowed) } }), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  allowed?.close();
  refused?.close();
});

interface Outcome {
  initialize: number | string;
  session: boolean;
  list: number | string;
  prompts: number;
}

/** initialize, then prompts/list in that session, by the page's own fetch; a CORS refusal is the TypeError's name. */
function session(page: Page, endpoint: string): Promise<Outcome> {
  return page.evaluate(async (url) => {
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(url, {
        method: 'POST',
        headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const out = { initialize: 0 as number | string, session: false, list: 0 as number | string, prompts: 0 };
    let init: Response;
    try {
      init = await post({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'browser', version: '1' } },
      });
    } catch (e) {
      out.initialize = (e as Error).name;
      return out;
    }
    out.initialize = init.status;
    const id = init.headers.get('mcp-session-id');
    out.session = id !== null;
    if (!id) return out;
    const headers = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    try {
      const list = await post({ jsonrpc: '2.0', id: 2, method: 'prompts/list' }, headers);
      out.list = list.status;
      out.prompts = ((await list.json()) as { result: { prompts: unknown[] } }).result.prompts.length;
    } catch (e) {
      out.list = (e as Error).name;
    }
    return out;
  }, endpoint);
}

async function pageAt(origin: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(`${origin}/`);
  return page;
}

describe('an MCP client in a browser page on another origin', () => {
  // `/mcp`: the preflight passes and Mcp-Session-Id is readable; `/mcp/`: the browser also follows the 308 under CORS.
  it.each(['', '/'])('opens a session and lists at /mcp%s', async (slash) => {
    const page = await pageAt(originOf(allowed));
    try {
      const out = await session(page, `${gw.mcpUrl}${slash}`);
      expect(out).toMatchObject({ initialize: 200, session: true, list: 200 });
      expect(out.prompts).toBeGreaterThan(0);
    } finally {
      await page.close();
    }
  });

  it('a page on an origin not in ALLOWED_ORIGINS is refused at /mcp and at /mcp/', async () => {
    const page = await pageAt(originOf(refused));
    try {
      for (const url of [gw.mcpUrl, `${gw.mcpUrl}/`])
        expect(await session(page, url), url).toMatchObject({ initialize: 'TypeError', session: false });
    } finally {
      await page.close();
    }
  });
});
