/**
 * Listing pages in the edge cache (the Workers Cache API): the only module
 * that touches `caches.default`.
 *
 * Four kinds of entry, all under a reserved path of the gateway's own host:
 *   …/__promptgate/pointer                       newest generation this colo has seen, and its hints;
 *                                                short-lived (CATALOG_REFRESH_MS, at least 1 s)
 *   …/__promptgate/announced                     the newest generation a stream at this colo announced
 *                                                (catalog/catch-up.ts); ANNOUNCED_TTL_S, never lowered
 *   …/__promptgate/pages/<scope>/<principal>/<view>/<generation>/<variant>?cursor=…
 *                                                one serialized list page; immutable, so long-lived
 *   …/__promptgate/skill-files/<64 hex>          a skill file's bytes by digest (catalog/skills/files.ts):
 *                                                a digest names one content forever, so cached for a year
 *
 * Pages are keyed by generation, so a publish needs no purge: the next
 * generation's keys are simply new, and old pages age out unread. Every
 * page's key names its view (a digest of the view key, catalog/views.ts):
 * principals who see the same prompts share it, no one else ever reads it.
 * A page whose content itself is `private` (an upstream said so) also
 * carries a digest of the caller, so it is never served to anyone else. Note: the Cache API is a no-op on
 * `*.workers.dev` hosts; there every lookup misses and the isolate and KV
 * path serves alone (docs/caching.md).
 */
import type { CacheHints } from './hints.js';
import { log } from '../lib/log.js';

/** The hints are the content's own (before views); `groups`, when the catalog uses any: a cold isolate's view key. */
export interface Pointer extends CacheHints {
  generation: number;
  groups?: string[];
}

export interface PageKey {
  readonly origin: string;
  readonly scope: CacheHints['cacheScope'];
  /** `public` unless the content itself is private; then a digest of the caller. */
  readonly principal: string;
  /** `-` for everyone's view of a catalog without groups; else a digest of the view key. */
  readonly view: string;
  readonly generation: number;
  /**
   * Which shape of page: the protocol revision, the list kind for all but prompts, and the paging
   * (page size and signing secret) its cursors were made with (listing-keys.ts pageVariant).
   */
  readonly variant: string;
  readonly cursor: string | undefined;
}

const PAGE_TTL_S = 86_400;
const BASE = '/__promptgate';

function store(): Cache | undefined {
  // Absent in some local and test set-ups: caching is an optimisation, never a requirement.
  return typeof caches === 'undefined' ? undefined : caches.default;
}

const pointerUrl = (origin: string) => `${origin}${BASE}/pointer`;

function pageUrl(k: PageKey): string {
  const cursor = k.cursor === undefined ? '' : `?cursor=${encodeURIComponent(k.cursor)}`;
  const path = `${k.scope}/${k.principal}/${k.view}/${k.generation}/${encodeURIComponent(k.variant)}`;
  return `${k.origin}${BASE}/pages/${path}${cursor}`;
}

/** An entry's body as `as` reads it (text or bytes), or undefined on a miss or where the cache is absent. */
async function read<T>(url: string, as: (r: Response) => Promise<T>): Promise<T | undefined> {
  try {
    const hit = await store()?.match(url);
    return hit ? await as(hit) : undefined;
  } catch (e) {
    log.warn('edge cache read failed', { error: String(e) });
    return undefined;
  }
}

const text = (r: Response) => r.text();

async function write(url: string, body: BodyInit, contentType: string, cacheControl: string): Promise<void> {
  try {
    await store()?.put(
      url,
      new Response(body, { headers: { 'content-type': contentType, 'cache-control': cacheControl } }),
    );
  } catch (e) {
    log.warn('edge cache write failed', { error: String(e) });
  }
}

const writeJson = (url: string, body: string, maxAgeS: number) =>
  write(url, body, 'application/json', `public, max-age=${maxAgeS}`);

export async function readPointer(origin: string): Promise<Pointer | undefined> {
  const json = await read(pointerUrl(origin), text);
  if (!json) return undefined;
  try {
    const p = JSON.parse(json) as Pointer;
    if (p.groups !== undefined && !(Array.isArray(p.groups) && p.groups.every((g) => typeof g === 'string')))
      return undefined;
    return Number.isInteger(p.generation) ? p : undefined;
  } catch {
    return undefined;
  }
}

export function writePointer(origin: string, p: Pointer, maxAgeMs: number): Promise<void> {
  return writeJson(pointerUrl(origin), JSON.stringify(p), Math.max(1, Math.ceil(maxAgeMs / 1000)));
}

/**
 * How long an announced generation stays readable: long enough for KV to carry the change
 * everywhere (about a minute), short enough that a catalog whose generations started over
 * (a new namespace) is not chased for long.
 */
export const ANNOUNCED_TTL_S = 300;

const announcedUrl = (origin: string) => `${origin}${BASE}/announced`;

/** The newest generation a stream at this colo announced, or undefined (none, expired, or no cache here). */
export async function readAnnounced(origin: string): Promise<number | undefined> {
  const body = await read(announcedUrl(origin), text);
  const generation = Number(body);
  return body !== undefined && Number.isSafeInteger(generation) && generation > 0 ? generation : undefined;
}

/** Records `generation` as announced at this colo; never lowers it (two announcements may land out of order). */
export async function writeAnnounced(origin: string, generation: number): Promise<void> {
  const current = await readAnnounced(origin);
  if (current !== undefined && current >= generation) return;
  await write(announcedUrl(origin), String(generation), 'text/plain', `public, max-age=${ANNOUNCED_TTL_S}`);
}

export const readPage = (k: PageKey) => read(pageUrl(k), text);
export const writePage = (k: PageKey, json: string) => writeJson(pageUrl(k), json, PAGE_TTL_S);

/** A year: the longest lifetime worth asking for; a digest's bytes never change. */
const FILE_TTL_S = 31_536_000;

const fileUrl = (origin: string, hex: string) => `${origin}${BASE}/skill-files/${hex}`;

/** A skill file's bytes by the hex of its digest, or undefined on a miss (or where the cache is absent). */
export const readFileBytes = (origin: string, hex: string): Promise<Uint8Array | undefined> =>
  read(fileUrl(origin, hex), async (r) => new Uint8Array(await r.arrayBuffer()));

export const writeFileBytes = (origin: string, hex: string, bytes: Uint8Array): Promise<void> =>
  write(fileUrl(origin, hex), bytes, 'application/octet-stream', `public, max-age=${FILE_TTL_S}, immutable`);
