/**
 * The catalog index as the web-usage suites read it: fetched through the app with an execution
 * context whose background work (edge-cache writes) is finished before it returns, and a card's
 * sparkline read back by its accessible name.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { expect } from 'vitest';
import { app } from '../../src/routes/app.js';

export async function indexHtml(e: Env): Promise<string> {
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request('https://gateway.test/', { headers: { accept: 'text/html' } }), e, ctx);
  const body = await res.text();
  await waitOnExecutionContext(ctx);
  expect(res.status).toBe(200);
  return body;
}

/** The title of the sparkline on prompt `name`'s card. */
export const sparkTitle = (html: string, name: string): string | undefined =>
  new RegExp(`data-name="${name}".*?<svg class="spark".*?<title>([^<]*)</title>`, 's').exec(html)?.[1];
