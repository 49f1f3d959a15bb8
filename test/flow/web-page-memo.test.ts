/**
 * The isolate's memo of catalog pages (routes/web-cache.ts): a page is kept for its catalog and its
 * UTC hour only, since no request asks for an older one again, and the pages kept are bounded in
 * size, not only in count: a few large index pages must not fill the isolate.
 */
import { afterEach, beforeAll, expect, it, vi } from 'vitest';
import { currentCatalog } from '../../src/catalog/store.js';
import { cachedPage, MAX_PAGE_CHARS, pageMemoStats, viewOf, type Viewer } from '../../src/routes/web-cache.js';
import { principal, scope } from '../helpers/principals.js';
import { publish } from '../helpers/worker.js';

const viewer: Viewer = { principal: principal('memo-reader', []), needsKey: false };
let builds = 0;
const build = (html: string) => () => {
  builds++;
  return Promise.resolve({ html, keep: true });
};

beforeAll(async () => {
  await publish([{ name: 'memo', messages: [{ role: 'user', content: { type: 'text', text: 'memo' } }] }]);
});
afterEach(() => vi.useRealTimers());

it('keeps a page for its hour only: once the hour turns, the last hour’s pages are gone from memory', async () => {
  const q = scope(viewer.principal);
  const view = viewOf(await currentCatalog(q), viewer);
  builds = 0;
  expect(await cachedPage(q, viewer, '/memo-hour', build('one'))).toBe('one');
  expect(await cachedPage(q, viewer, '/memo-hour', build('two'))).toBe('one');
  expect(builds).toBe(1);
  expect(pageMemoStats(view)).toEqual({ entries: 1, size: 3 });
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 3_600_000 });
  // The edge cache's key names the hour too: the page is built again, and only it is kept.
  expect(await cachedPage(q, viewer, '/memo-hour', build('three'))).toBe('three');
  expect(builds).toBe(2);
  expect(pageMemoStats(view)).toEqual({ entries: 1, size: 5 });
});

it('holds pages up to a total size: the oldest go first, and one larger than the whole budget is not kept', async () => {
  const q = scope(viewer.principal);
  const view = viewOf(await currentCatalog(q), viewer);
  const big = Math.floor(MAX_PAGE_CHARS * 0.6);
  for (const path of ['/big-1', '/big-2']) await cachedPage(q, viewer, path, build('x'.repeat(big)));
  // The second page pushed the first out.
  expect(pageMemoStats(view)).toEqual({ entries: 1, size: big });
  builds = 0;
  await cachedPage(q, viewer, '/big-2', build('unused'));
  expect(builds).toBe(0);
  expect(await cachedPage(q, viewer, '/too-big', build('y'.repeat(MAX_PAGE_CHARS + 1)))).toHaveLength(
    MAX_PAGE_CHARS + 1,
  );
  expect(pageMemoStats(view)).toEqual({ entries: 1, size: big });
});
