/**
 * A local prompt's page and the catalog writer it asks for the prompt's last change and history: a
 * writer that fails or is busy leaves "Last changed" unknown within /status's bound and the page
 * still answers, and such a page is not kept. An admin's page lists only the newest versions and
 * points to the admin API for the rest, however many a prompt has.
 */
import { env, runInDurableObject, SELF } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { catalogWriter, writerObject } from '../../src/catalog/stubs.js';
import type { PromptRecord } from '../../src/catalog/types.js';
import { STATUS_CALL_MS } from '../../src/lib/bounded.js';
import { HISTORY_SHOWN } from '../../src/routes/web-cards.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { publish } from '../helpers/worker.js';

const ADMIN = { authorization: 'Bearer test-admin-token' };

async function page(name: string, headers: Record<string, string> = {}) {
  const res = await SELF.fetch(`https://gateway.test/p/${name}`, { headers: { accept: 'text/html', ...headers } });
  const body = await res.text();
  expect(res.status, body).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
  return body;
}

const UNKNOWN = '<dt>Last changed</dt><dd>unknown</dd>';
const KNOWN = /<dt>Last changed<\/dt><dd><time id="changed" datetime="([^"]+)">/;

/** Renames a table of the real writer: every read of it throws until it is renamed back. */
const rename = (from: string, to: string) =>
  runInDurableObject(writerObject(env), (_o, ctx) => ctx.storage.sql.exec(`ALTER TABLE ${from} RENAME TO ${to}`));

beforeAll(async () => {
  await publish(FIXTURE_PROMPTS);
});

describe('a prompt page when the catalog writer does not answer', () => {
  it('shows the last change as unknown when the writer fails, and does not keep that page', async () => {
    await rename('versions', 'v2');
    try {
      const html = await page('greet');
      expect(html).toContain(UNKNOWN);
      expect(html).toContain('<h1>Greeting</h1>');
      const admin = await page('greet', ADMIN);
      expect(admin).toContain(UNKNOWN);
      expect(admin).toContain('id="history-unknown"');
    } finally {
      await rename('v2', 'versions');
    }
    // Neither page was kept: the next requests ask the writer again.
    expect(await page('greet')).toMatch(KNOWN);
    expect(await page('greet', ADMIN)).toMatch(/<section id="history".*<td>1<\/td>/s);
  });

  it('answers within the bound when the writer is busy, and does not keep that page', async () => {
    // The writer is busy for twice the bound: every call to it waits behind that.
    const busy = runInDurableObject(writerObject(env), (_o, ctx) =>
      ctx.blockConcurrencyWhile(() => new Promise((r) => setTimeout(r, 2 * STATUS_CALL_MS))),
    );
    try {
      await new Promise((r) => setTimeout(r, 50));
      const started = Date.now();
      expect(await page('linky')).toContain(UNKNOWN);
      expect(Date.now() - started).toBeLessThan(STATUS_CALL_MS + 1_000);
    } finally {
      await busy;
    }
    expect(await page('linky')).toMatch(KNOWN);
  });
});

describe("an admin's prompt page of a prompt with many versions", () => {
  it(`lists the newest ${HISTORY_SHOWN} and points to the admin API for the older ones`, async () => {
    const total = HISTORY_SHOWN + 5;
    const base: PromptRecord = { name: 'often', messages: [{ role: 'user', content: { type: 'text', text: '' } }] };
    // Published one at a time through the writer, as CI publishing on every commit would.
    for (let i = 1; i <= total; i++) {
      const r = await catalogWriter(env).put({
        ...base,
        messages: [{ role: 'user', content: { type: 'text', text: `v${i}` } }],
      });
      expect(r.ok, JSON.stringify(r)).toBe(true);
    }
    const html = await page('often', ADMIN);
    const section = /<section id="history".*?<\/section>/s.exec(html)![0];
    const versions = [...section.matchAll(/<tr><td>(\d+)<\/td>/g)].map((m) => Number(m[1]));
    expect(versions).toEqual(Array.from({ length: HISTORY_SHOWN }, (_, i) => total - i));
    expect(section).toContain(
      '<p id="history-older">5 older versions are not shown: <code>GET /admin/prompts/often/history?before=6</code>',
    );

    // "Last changed" is the newest version's time, as the admin API gives it.
    const api = await SELF.fetch('https://gateway.test/admin/prompts/often/history?limit=1', { headers: ADMIN });
    const newest = (await api.json<{ history: { version: number; createdAt: string }[] }>()).history[0]!;
    expect(newest.version).toBe(total);
    expect(KNOWN.exec(html)?.[1]).toBe(newest.createdAt);
    // Anyone else sees the same time and no history.
    const anyone = await page('often');
    expect(KNOWN.exec(anyone)?.[1]).toBe(newest.createdAt);
    expect(anyone).not.toContain('id="history"');
  });
});
