/**
 * Catalog pages (HTML) cached like list pages (catalog/listing.ts): in this isolate, then in the
 * edge cache under a key naming the catalog generation, the viewer's view (a digest: group names
 * never appear in a URL), whether it is an admin's or a credential-less page, the UTC hour (the
 * sparklines) and the asset names (a deploy with a new stylesheet makes new keys). A cold isolate
 * finds the generation and the catalog's groups in the colo's pointer, so a hit reads no KV.
 * Cached pages are shared by everyone with the same view: nothing personal goes in them (the
 * route splices the viewer's name and the live health in afterwards).
 */
import type { Catalog, View } from '../catalog/catalog.js';
import { readPage, readPointer, writePage, writePointer, type PageKey, type Pointer } from '../catalog/edge.js';
import { currentCatalog, peekCatalog } from '../catalog/store.js';
import { listMissing } from '../catalog/upstreams/cold.js';
import { viewKeyIn } from '../catalog/views.js';
import { SizedMap } from '../lib/memo.js';
import { sha256Hex } from '../lib/hash.js';
import type { Principal, RequestScope } from '../lib/scope.js';
import { originOf } from '../lib/url.js';
import { webAssets } from '../web/assets.js';
import { utcHour } from './web-cards.js';

/**
 * A page as `build` made it. `keep: false` for one built without a figure it shows (the week of use
 * or a prompt's last change, when the usage store or the catalog writer did not answer): like a
 * provisional view's page it is served to this request only, kept neither here nor in the edge
 * cache, so the next request builds it with the figure.
 */
export interface Built {
  readonly html: string;
  readonly keep: boolean;
}

/** Who the page is for: what decides its content besides the catalog. */
export interface Viewer {
  readonly principal: Principal;
  /** No credential was accepted: the page shows nothing but the key form. */
  readonly needsKey: boolean;
  /** The WWW-Authenticate value the refusal carried, for the answers that are a 401 (RFC 9110 §15.5.2). */
  readonly challenge?: string | undefined;
}

/** The viewer's view of a catalog (the catalog itself when it uses no groups). */
export const viewOf = (c: Catalog, v: Viewer): View => c.viewFor(v.principal);

/** The page's variant within a generation: the view key and the two flags that change its content. */
const variantOf = (viewKey: string, v: Viewer) => `${viewKey}|${v.principal.admin ? 'a' : ''}|${v.needsKey ? 'k' : ''}`;

async function keyOf(q: RequestScope, generation: number, variant: string, path: string): Promise<PageKey> {
  const { css, js } = webAssets();
  return {
    origin: originOf(q.url),
    scope: 'private',
    principal: 'public',
    view: await sha256Hex(`web/v1|${variant}`, 16),
    generation,
    variant: `html/${utcHour()}/${css.name}+${js.name}`,
    cursor: path,
  };
}

/** When this isolate last wrote the colo's pointer for a catalog, and for how long it was good. */
const pointed = new WeakMap<object, { at: number; ttlMs: number }>();

/**
 * Keeps the colo's pointer (catalog/edge.ts) alive while this isolate serves pages from memory, as
 * listings do: rewritten at half the life it was written with, so cold isolates keep finding pages.
 */
function renewPointer(q: RequestScope, view: View, now = false): void {
  const last = pointed.get(view.compiled);
  const t = Date.now();
  if (!now && last && t - last.at <= last.ttlMs / 2) return;
  const ttlMs = Math.max(1000, q.cfg.catalogRefreshMs);
  pointed.set(view.compiled, { at: t, ttlMs });
  const pointer: Pointer = { generation: view.generation, ...view.contentHints(q.cfg.listTtlMs) };
  if (view.compiled.groups.size) pointer.groups = [...view.compiled.groups].sort();
  q.waitUntil(writePointer(originOf(q.url), pointer, ttlMs));
}

/**
 * Pages this isolate made or fetched, per catalog object and UTC hour: a page of an older generation
 * or hour is never asked for again, so it goes with its catalog, or when the hour turns, and the
 * rest are bounded in count and size (an index of 3,000 prompts is ~2 MB). The key also names the
 * origin (pages name the gateway's own URL).
 */
const MAX_PAGES = 256;
export const MAX_PAGE_CHARS = 16 * 1024 * 1024;
const memos = new WeakMap<object, { hour: number; pages: SizedMap<string, string> }>();
function pagesOf(view: View): SizedMap<string, string> {
  const hour = utcHour();
  let m = memos.get(view.compiled);
  if (m?.hour !== hour)
    memos.set(view.compiled, (m = { hour, pages: new SizedMap(MAX_PAGES, MAX_PAGE_CHARS, (p) => p.length) }));
  return m.pages;
}
/** What this isolate keeps for a view's catalog this hour (tests). */
export const pageMemoStats = (view: View) => memos.get(view.compiled)?.pages.stats;
const memoKey = (q: RequestScope, variant: string, path: string) => `${originOf(q.url)}|${variant}|${path}`;

/**
 * The page at `path` for this viewer: from this isolate, the edge cache, or `build` (then kept in
 * both, unless it says not to). `build` gets the catalog and the viewer's view of it; undefined (no
 * such page) is not kept.
 */
export async function cachedPage(
  q: RequestScope,
  v: Viewer,
  path: string,
  build: (view: View, catalog: Catalog) => Promise<Built | undefined>,
): Promise<string | undefined> {
  let catalog = peekCatalog(q);
  if (!catalog) {
    const pointer = await readPointer(originOf(q.url));
    if (pointer) {
      const variant = variantOf(viewKeyIn(pointer.groups, v.principal), v);
      const hit = await readPage(await keyOf(q, pointer.generation, variant, path));
      if (hit !== undefined) {
        q.record.cache = 'edge';
        return hit;
      }
    }
    catalog = await currentCatalog(q);
  }
  // Upstreams never listed yet are listed first, as prompts/list does (synchronous when none is missing).
  catalog = await listMissing(q, catalog, Number.MAX_SAFE_INTEGER);
  const view = viewOf(catalog, v);
  // A merge made ahead of the writer, or content an upstream marked private: never shared.
  if (view.provisional || view.contentHints(q.cfg.listTtlMs).cacheScope === 'private')
    return (await build(view, catalog))?.html;
  const variant = variantOf(view.key, v);
  const pages = pagesOf(view);
  const mk = memoKey(q, variant, path);
  const known = pages.get(mk);
  if (known !== undefined) {
    q.record.cache = 'isolate';
    renewPointer(q, view);
    return known;
  }
  const key = await keyOf(q, view.generation, variant, path);
  const hit = await readPage(key);
  if (hit !== undefined) {
    q.record.cache = 'edge';
    pages.set(mk, hit);
    return hit;
  }
  const built = await build(view, catalog);
  // Nothing to show (a name this view does not hold): not remembered, so never served from a cache.
  if (built === undefined) return undefined;
  const html = built.html;
  if (!built.keep) return html;
  pages.set(mk, html);
  q.waitUntil(writePage(key, html));
  renewPointer(q, view, true);
  return html;
}

/** The catalog and view for an uncached page (filtered index, rendered preview). */
export async function freshView(q: RequestScope, v: Viewer): Promise<{ catalog: Catalog; view: View }> {
  const current = await currentCatalog(q);
  const catalog = await listMissing(q, current, Number.MAX_SAFE_INTEGER);
  return { catalog, view: viewOf(catalog, v) };
}
