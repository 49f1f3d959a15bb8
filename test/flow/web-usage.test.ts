/**
 * The index's sparklines: each prompt's last seven UTC days of prompts/get, from the usage store
 * (usage/query.ts dailyUse), drawn as an inline SVG with the numbers in its accessible name.
 * A file of its own: the page keeps the hour's usage per isolate, so the counts go in first.
 */
import { env, SELF } from 'cloudflare:test';
import { beforeAll, expect, it } from 'vitest';
import { HOUR_MS, type UsageTuple } from '../../src/usage/store.js';
import { usageStore } from '../../src/usage/stub.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { publish } from '../helpers/worker.js';

const H = Math.floor(Date.now() / HOUR_MS);

beforeAll(async () => {
  const rows: UsageTuple[] = [
    [H, 'prompts/get', 'greet', 'a/1', 'modern', 'ok', 5],
    [H, 'prompts/get', 'greet', 'b/2', 'legacy', '-32602', 1],
    [H - 48, 'prompts/get', 'greet', 'a/1', 'modern', 'ok', 3],
    [H, 'completion/complete', 'greet', 'a/1', 'modern', 'ok', 4],
  ];
  await usageStore(env).add([{ id: 'web-usage:1', batch: { usage: rows, errors: [] } }]);
  await publish(FIXTURE_PROMPTS);
});

const sparkOf = (html: string, name: string) =>
  new RegExp(`data-name="${name}".*?(<svg class="spark".*?</svg>)`, 's').exec(html)?.[1];

it("draws each prompt's week of prompts/get as an inline SVG", async () => {
  const html = await (await SELF.fetch('https://gateway.test/', { headers: { accept: 'text/html' } })).text();
  const greet = sparkOf(html, 'greet')!;
  expect(greet).toContain('<title>9 uses in the last 7 days (0, 0, 0, 0, 3, 0, 6)</title>');
  // The last point is the highest (6 of 6), the flat days on the baseline.
  expect(greet).toMatch(/<polyline points="0\.0,17\.0 .* 70\.0,1\.0"/);
  expect(sparkOf(html, 'alpha')).toContain('<title>0 uses in the last 7 days (0, 0, 0, 0, 0, 0, 0)</title>');
});
