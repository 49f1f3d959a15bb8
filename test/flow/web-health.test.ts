/**
 * Upstream health on the index when the CatalogWriter cannot answer: health is a live extra spliced
 * into every index page, a cache hit too, so a writer that fails or hangs makes it unknown (as
 * /status reports it) within /status's bound, and the page still answers. A failure is not kept.
 */
import { env, runInDurableObject, SELF } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { writerObject } from '../../src/catalog/stubs.js';
import { STATUS_CALL_MS } from '../../src/lib/bounded.js';
import { forgetHealth } from '../../src/routes/web-health.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { publish } from '../helpers/worker.js';

async function index() {
  const res = await SELF.fetch('https://gateway.test/', { headers: { accept: 'text/html' } });
  const body = await res.text();
  expect(res.status, body).toBe(200);
  return body;
}

const UNKNOWN = '<tr data-state="unknown">';
const NONE = 'No upstream servers are configured.';

beforeAll(async () => {
  await publish(FIXTURE_PROMPTS);
  // The page itself is cached from here on: what follows is a cache hit with live health.
  expect(await index()).toContain(NONE);
});

describe('the index when the catalog writer does not answer', () => {
  it('renders with health unknown when upstreams() fails, and shows it again once the writer answers', async () => {
    const rename = (from: string, to: string) =>
      runInDurableObject(writerObject(env), (_o, ctx) => ctx.storage.sql.exec(`ALTER TABLE ${from} RENAME TO ${to}`));
    // A real failure of the real writer: its upstreams table is gone, so upstreams() throws until it is back.
    await rename('upstreams', 'u2');
    try {
      forgetHealth();
      const html = await index();
      expect(html).toContain(UNKNOWN);
      expect(html).toContain('data-name="greet"');
    } finally {
      await rename('u2', 'upstreams');
    }
    // The failure was not kept: the next page asks again.
    expect(await index()).toContain(NONE);
  });

  it('/status still refuses a credential in its URL while the writer cannot answer', async () => {
    const rename = (from: string, to: string) =>
      runInDurableObject(writerObject(env), (_o, ctx) => ctx.storage.sql.exec(`ALTER TABLE ${from} RENAME TO ${to}`));
    await rename('upstreams', 'u3');
    try {
      const res = await SELF.fetch('https://gateway.test/status?access_token=x');
      expect(res.status).toBe(400);
      expect((await res.json<{ error: { code: string } }>()).error.code).toBe('invalid_request');
      // Without one, /status answers, with what it does not know marked so.
      expect((await SELF.fetch('https://gateway.test/status')).status).toBe(200);
    } finally {
      await rename('u3', 'upstreams');
    }
  });

  it('renders with health unknown within the bound when upstreams() hangs', async () => {
    forgetHealth();
    // The writer is busy for twice the bound: every call to it waits behind that.
    const busy = runInDurableObject(writerObject(env), (_o, ctx) =>
      ctx.blockConcurrencyWhile(() => new Promise((r) => setTimeout(r, 2 * STATUS_CALL_MS))),
    );
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    expect(await index()).toContain(UNKNOWN);
    expect(Date.now() - started).toBeLessThan(2 * STATUS_CALL_MS);
    await busy;
  });
});
