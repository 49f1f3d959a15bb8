/**
 * The index's sparklines per view. Where a name is both a grouped local prompt and an upstream's
 * (a caller outside the group is served the upstream's), use is counted per owner
 * (`shared` and `shared@cx`: view-lookup.ts usageKey), and each viewer's card shows the use of the
 * owner it is served: neither figure tells of the other prompt. A file of its own: the page keeps
 * the hour's usage per isolate, so the counts go in first.
 */
import { env, SELF } from 'cloudflare:test';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { catalogWriter } from '../../src/catalog/stubs.js';
import { forgetUpstreamConfig, UPSTREAMS_KEY } from '../../src/catalog/upstreams/config.js';
import { HOUR_MS, type UsageTuple } from '../../src/usage/store.js';
import { usageStore } from '../../src/usage/stub.js';
import { sparkTitle } from '../helpers/index-page.js';
import { ADMIN_TOKEN, adminFetch, publish } from '../helpers/worker.js';

const H = Math.floor(Date.now() / HOUR_MS);
const text = (name: string, groups?: string[]) => ({
  name,
  ...(groups && { groups }),
  messages: [{ role: 'user' as const, content: { type: 'text' as const, text: name } }],
});

beforeAll(async () => {
  const rows: UsageTuple[] = [
    [H, 'prompts/get', 'shared', 'a/1', 'modern', 'ok', 7],
    [H, 'prompts/get', 'shared@cx', 'a/1', 'modern', 'ok', 2],
    [H, 'prompts/get', 'open', 'a/1', 'modern', 'ok', 2],
    [H, 'prompts/get', 'gx.plan', 'a/1', 'modern', 'ok', 5],
    [H, 'prompts/get', 'gx.plan@gx', 'a/1', 'modern', 'ok', 3],
  ];
  await usageStore(env).add([{ id: 'web-usage-views:1', batch: { usage: rows, errors: [] } }]);
  // `gx.plan` is both a grouped local prompt and the name a prefixed upstream's `plan` is listed under.
  await publish([text('shared', ['eng']), text('open'), text('gx.plan', ['eng'])]);
  await env.PROMPTS.put(
    UPSTREAMS_KEY,
    JSON.stringify([
      { id: 'cx', url: 'https://cx.example/mcp', prefix: '' },
      { id: 'gx', url: 'https://gx.example/mcp', prefix: 'gx' },
    ]),
  );
  forgetUpstreamConfig(env);
  await catalogWriter(env).upstreamsReported([
    { id: 'cx', prefix: '', prompts: [{ name: 'shared', origin: { upstream: 'cx', name: 'shared' } }] },
    { id: 'gx', prefix: 'gx', prompts: [{ name: 'gx.plan', origin: { upstream: 'gx', name: 'plan' } }] },
  ]);
});
afterAll(async () => {
  await env.PROMPTS.delete(UPSTREAMS_KEY);
  forgetUpstreamConfig(env);
});

const index = async (headers: Record<string, string> = {}) =>
  (await SELF.fetch('https://gateway.test/', { headers: { accept: 'text/html', ...headers } })).text();

it('shows each viewer the use of the owner of a shared name it is served, and nothing of the other', async () => {
  const outsider = await index();
  // Served the upstream's `shared`: its own two uses, not the eng prompt's seven.
  expect(outsider).toContain('data-source="cx"');
  expect(sparkTitle(outsider, 'shared')).toBe('2 uses in the last 7 days (0, 0, 0, 0, 0, 0, 2)');
  expect(sparkTitle(outsider, 'open')).toBe('2 uses in the last 7 days (0, 0, 0, 0, 0, 0, 2)');
  const admin = await index({ authorization: `Bearer ${ADMIN_TOKEN}` });
  expect(sparkTitle(admin, 'shared')).toBe('7 uses in the last 7 days (0, 0, 0, 0, 0, 0, 7)');
});

it("once the grouped local prompt is gone, the upstream's figures stay its own: the eng prompt's never pass to it", async () => {
  const res = await adminFetch('DELETE', '/prompts/shared');
  expect(res.status).toBe(200);
  const outsider = await index();
  expect(outsider).toContain('data-source="cx"');
  expect(sparkTitle(outsider, 'shared')).toBe('2 uses in the last 7 days (0, 0, 0, 0, 0, 0, 2)');
  // The admin is now served the upstream's too, with its figures.
  expect(sparkTitle(await index({ authorization: `Bearer ${ADMIN_TOKEN}` }), 'shared')).toBe(
    '2 uses in the last 7 days (0, 0, 0, 0, 0, 0, 2)',
  );
});

it("a prefixed upstream's name a grouped local prompt shared never takes that prompt's figures once it is gone", async () => {
  const outsider = await index();
  expect(outsider).toContain('data-source="gx"');
  expect(sparkTitle(outsider, 'gx.plan')).toBe('3 uses in the last 7 days (0, 0, 0, 0, 0, 0, 3)');
  expect(sparkTitle(await index({ authorization: `Bearer ${ADMIN_TOKEN}` }), 'gx.plan')).toBe(
    '5 uses in the last 7 days (0, 0, 0, 0, 0, 0, 5)',
  );
  expect((await adminFetch('DELETE', '/prompts/gx.plan')).status).toBe(200);
  // Everyone is now served the upstream's `plan`: its own three uses, never the eng prompt's five.
  for (const headers of [{}, { authorization: `Bearer ${ADMIN_TOKEN}` }] as Record<string, string>[])
    expect(sparkTitle(await index(headers), 'gx.plan')).toBe('3 uses in the last 7 days (0, 0, 0, 0, 0, 0, 3)');
});
