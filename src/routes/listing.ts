/**
 * GET /prompts and GET /prompts/{name}: the prompt catalog as plain,
 * CDN-cacheable JSON, for browsers, dashboards and anything that is not an
 * MCP client. Pages come from the same listing layer as POST prompts/list
 * (isolate → edge cache → KV) in the newest revision's shape, with
 * `ttlMs`/`cacheScope` and `nextCursor` as in a modern list result.
 *
 * Each caller sees its own view (catalog/views.ts): a prompt it may not
 * see is a 404 like an unknown one.
 *
 * HTTP caching mirrors the cache hints: `public` pages get max-age,
 * s-maxage, stale-while-revalidate and stale-if-error; `private` ones only
 * private caching and `Vary: Authorization`. A caller that authenticated
 * (any access-control method but `none`) always gets the private form: a
 * shared cache must not hand its page to a caller without credentials.
 * The strong ETag names the generation and hashes the view and the body's
 * bytes, so `If-None-Match` revalidation is a 304 exactly while the bytes are
 * the same. A provisional page (the cold upstream merge, which shares its
 * base's generation but not its bytes) gets its own tag and `no-cache`: it
 * stands until the writer publishes, usually within seconds.
 */
import { Hono, type Context } from 'hono';
import { listing, withHints } from '../catalog/listing.js';
import type { Listing } from '../catalog/listing-memo.js';
import { currentCatalog } from '../catalog/store.js';
import { findListingMissing } from '../catalog/upstreams/cold.js';
import { viewHints, type CacheHints } from '../catalog/hints.js';
import type { RequestScope } from '../lib/scope.js';
import { LookupError } from '../catalog/errors.js';
import { fnv1a } from '../lib/hash.js';
import { MODERN_VERSIONS } from '../lib/versions.js';
import { ApiError } from './api-error.js';
import type { AppEnv } from '../env.js';
import { identify, IDENTITY_HEADERS } from './auth.js';
import { clientRateLimit } from './limits.js';
import { headerOf, scopeOf, signingScopeOf } from './scope.js';

export const listings = new Hono<AppEnv>();

/**
 * CORS for any origin: a page depends only on the caller's view, and
 * credentials travel in Authorization (allowed below), never in cookies.
 * Written into each response rather than with hono/cors:
 * that middleware sets headers before the handler runs, which makes Hono
 * build an empty Response and then copy the handler's Response into a new
 * one; in a CPU profile of GET /prompts that was ~17 % of the Worker's time.
 */
const CORS = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'ETag' };

listings.options(
  '*',
  () =>
    new Response(null, {
      status: 204,
      headers: {
        ...CORS,
        'access-control-allow-methods': 'GET, HEAD, OPTIONS',
        'access-control-allow-headers': 'Authorization, If-None-Match',
        'access-control-max-age': '86400',
      },
    }),
);

listings.use('*', clientRateLimit('credentialed'), identify('prompts'));

const SHAPE = MODERN_VERSIONS[0];
/** How long a CDN may keep serving a stale page while the origin is failing. */
const STALE_IF_ERROR_S = 86_400;

function cacheControl(h: CacheHints, provisional: boolean): string {
  if (provisional) return `${h.cacheScope}, no-cache`;
  const s = Math.floor(h.ttlMs / 1000);
  if (h.cacheScope === 'private') return s > 0 ? `private, max-age=${s}` : 'private, no-cache';
  return `public, max-age=${s}, s-maxage=${s}, stale-while-revalidate=${s}, stale-if-error=${STALE_IF_ERROR_S}`;
}

/** Response headers for a page: built once per page (they depend only on its ETag and hints). */
interface Served {
  readonly body: string;
  readonly etag: string;
  readonly ok: Record<string, string>;
  readonly notModified: Record<string, string>;
}

/** An ETag part per view: nothing for everyone's view of a catalog without groups. */
const viewTag = (view: string) => (view === '' ? '' : `|${view}`);

/**
 * The page's strong ETag: its generation (the web catalog's script reads it), then a hash of its
 * view and its bytes, so different bytes (a provisional page, another page size or signing secret
 * in the cursors) never revalidate against a tag of the same generation.
 */
const etagOf = (generation: number, view: string, body: string) =>
  `"g${generation}-${fnv1a(`${body}${viewTag(view)}`).toString(36)}"`;

/** `provisional`: a page of the cold upstream merge (see the header). */
function served(body: string, etag: string, hints: CacheHints, provisional: boolean): Served {
  const notModified: Record<string, string> = { ...CORS, etag, 'cache-control': cacheControl(hints, provisional) };
  if (hints.cacheScope === 'private') notModified.vary = IDENTITY_HEADERS;
  return { body, etag, notModified, ok: { ...notModified, 'content-type': 'application/json' } };
}

/** 200 with the body, or 304 when the client already has this ETag (RFC 9110 §13.1.2: weak comparison). */
function respond(c: Context<AppEnv>, s: Served): Response {
  const match = headerOf(c, 'if-none-match');
  if (match !== undefined && match.split(',').some((t) => t.trim().replace(/^W\//, '') === s.etag || t.trim() === '*'))
    return new Response(null, { status: 304, headers: s.notModified });
  return new Response(s.body, { status: 200, headers: s.ok });
}

/** Whether the caller proved who it is: then every answer is private to it (HTTP caching only). */
const authenticated = (q: RequestScope) => q.principal !== undefined && q.principal.method !== 'none';

listings.get('/', async (c) => {
  const scope = signingScopeOf(c);
  const cursor = c.req.query('cursor');
  let page;
  try {
    page = await listing(scope, SHAPE, cursor);
  } catch (e) {
    if (e instanceof LookupError)
      throw new ApiError(400, 'invalid_cursor', 'Invalid or expired cursor; start again from GET /prompts');
    throw e;
  }
  const memo = authenticated(scope) ? authedPages : pages;
  let out = memo.get(page);
  if (!out) {
    const body = withHints(page);
    const http: CacheHints = memo === authedPages ? viewHints(page.hints, true) : page.hints;
    const provisional = page.provisional === true;
    memo.set(page, (out = served(body, etagOf(page.generation, page.view, body), http, provisional)));
  }
  return respond(c, out);
});

/** Per page object (stable while the isolate is warm), for callers without and with credentials. */
const pages = new WeakMap<Listing, Served>();
const authedPages = new WeakMap<Listing, Served>();

listings.get('/:name', async (c) => {
  // Signs nothing: served even without SIGNING_SECRET.
  const scope = scopeOf(c);
  const { cfg } = scope;
  const name = c.req.param('name');
  // As GET /prompts and prompts/get do: a name only a never-listed upstream has is listed first.
  const { view, found: prompt } = await findListingMissing(scope, await currentCatalog(scope), (v) =>
    v.describe(name, SHAPE),
  );
  if (!prompt) throw new ApiError(404, 'unknown_prompt', `Unknown prompt "${name.slice(0, 100)}"`);
  const hints = view.cacheHints(cfg.listTtlMs);
  const body = JSON.stringify({ prompt, ttlMs: hints.ttlMs, cacheScope: hints.cacheScope });
  const http = authenticated(scope) ? viewHints(hints, true) : hints;
  return respond(c, served(body, etagOf(view.generation, view.key, body), http, view.provisional));
});
