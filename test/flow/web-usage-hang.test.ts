/**
 * The index when the usage store does not answer at all (its object held still): the page is
 * answered within /status's bound for one figure, its cards without figures, and that page is not
 * kept, so the next build shows the real ones. A file of its own: the page keeps the hour's usage
 * per isolate.
 */
import { env } from 'cloudflare:test';
import { beforeAll, expect, it } from 'vitest';
import { STATUS_CALL_MS } from '../../src/lib/bounded.js';
import { HOUR_MS } from '../../src/usage/store.js';
import { usageObject, usageStore } from '../../src/usage/stub.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { hold } from '../helpers/hold.js';
import { indexHtml, sparkTitle } from '../helpers/index-page.js';
import { publish } from '../helpers/worker.js';

/** The colo's pointer outlives the test (the suites' refresh interval is 0); usage counting off (no flush timers). */
const slow = { ...env, CATALOG_REFRESH_MS: '60000', USAGE: 'off' } as unknown as Env;

const index = () => indexHtml(slow);
const greetSpark = (html: string) => sparkTitle(html, 'greet');

beforeAll(async () => {
  const H = Math.floor(Date.now() / HOUR_MS);
  await usageStore(env).add([
    { id: 'web-usage-hang:1', batch: { usage: [[H, 'prompts/get', 'greet', 'a/1', 'modern', 'ok', 4]], errors: [] } },
  ]);
  await publish(FIXTURE_PROMPTS);
});

it('a usage store that does not answer leaves the cards without figures, not the page waiting', async () => {
  const store = hold(usageObject(env));
  const started = Date.now();
  try {
    expect(greetSpark(await index())).toBe('Use not shown');
    expect(Date.now() - started).toBeLessThan(STATUS_CALL_MS + 2_000);
  } finally {
    await store.release();
  }
  expect(greetSpark(await index())).toBe('4 uses in the last 7 days (0, 0, 0, 0, 0, 0, 4)');
});
