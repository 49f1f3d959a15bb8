/**
 * The index's sparklines when the usage store fails for a moment: the page still answers, and the
 * failure is not kept. A page built without its week of use is served to that request only, never
 * kept in the isolate or the edge cache, so the next build, in this isolate or a cold one, shows
 * the real figures. A file of its own: the page keeps the hour's usage per isolate.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { beforeAll, expect, it } from 'vitest';
import { HOUR_MS } from '../../src/usage/store.js';
import { usageObject, usageStore } from '../../src/usage/stub.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { indexHtml, sparkTitle } from '../helpers/index-page.js';
import { countingEnv, publish } from '../helpers/worker.js';

/** The colo's pointer outlives the test (the suites' refresh interval is 0); usage counting off (no flush timers). */
const slow = (e: Env) => ({ ...e, CATALOG_REFRESH_MS: '60000', USAGE: 'off' }) as unknown as Env;

const greetSpark = (html: string) => sparkTitle(html, 'greet');

const usageTable = (from: string, to: string) =>
  runInDurableObject(usageObject(env), (_o, ctx) => ctx.storage.sql.exec(`ALTER TABLE ${from} RENAME TO ${to}`));

beforeAll(async () => {
  const H = Math.floor(Date.now() / HOUR_MS);
  const usage: [number, string, string, string, string, string, number][] = [
    [H, 'prompts/get', 'greet', 'a/1', 'modern', 'ok', 5],
  ];
  await usageStore(env).add([{ id: 'web-usage-fault:1', batch: { usage, errors: [] } }]);
  await publish(FIXTURE_PROMPTS);
});

it('a failed usage read is not kept: the next page build, warm or cold, shows the real figures', async () => {
  const real = '5 uses in the last 7 days (0, 0, 0, 0, 0, 0, 5)';
  // A real failure of the real store: its table is gone, so daily() throws until it is back.
  await usageTable('usage', 'u');
  try {
    expect(greetSpark(await indexHtml(slow(env)))).toBe('Use not shown');
  } finally {
    await usageTable('u', 'usage');
  }
  // A cold isolate finds no page in the edge cache, and this isolate none of its own.
  expect(greetSpark(await indexHtml(slow(countingEnv().env)))).toBe(real);
  expect(greetSpark(await indexHtml(slow(env)))).toBe(real);
});
