/**
 * The web catalog's routes (docs/web-catalog.md): the index at `/` for browsers (the JSON stub for
 * everyone else), a prompt's page, its preview fragment and completions, and the two assets.
 * Thin: identity here, data from web-cards.ts and web-calls.ts, caching in web-cache.ts, markup in src/web/.
 * Every HTML answer carries the strict CSP; a viewer sees only what it could get over MCP.
 */
import { Hono, type Context } from 'hono';
import { authorize } from '../auth/authenticate.js';
import { AuthError } from '../auth/errors.js';
import { NOBODY } from '../auth/principal.js';
import type { AppEnv } from '../env.js';
import type { Catalog, View } from '../catalog/catalog.js';
import { argumentsIn, COMPLETION_PARAMS, PAGE_PARAMS } from '../web/arg-query.js';
import { assetNamed } from '../web/assets.js';
import { filtered, filtersOf, NO_FILTERS } from '../web/filter.js';
import { HEALTH_SLOT, HealthRows } from '../web/health-table.js';
import { IndexPage } from '../web/index-page.js';
import { VIEWER_SLOT, Viewer as ViewerLine } from '../web/layout.js';
import { Messages } from '../web/preview.js';
import { NotFoundPage, PromptPage } from '../web/prompt-page.js';
import type { Chrome } from '../web/types.js';
import { mediaTypes } from './guards.js';
import { headerOf, scopeOf, setPrincipal } from './scope.js';
import { cachedPage, freshView, type Built, type Viewer } from './web-cache.js';
import { principalSees } from '../catalog/views.js';
import type { RequestScope } from '../lib/scope.js';
import { argumentsOf, complete, preview } from './web-calls.js';
import { cardFor, cardsOf, changesOf } from './web-cards.js';
import { health } from './web-health.js';
import { IDENTITY_HEADERS } from './auth.js';
import { authenticateGuarded } from './token-guesses.js';
import { clientRateLimit } from './limits.js';

export const web = new Hono<AppEnv>();

// The pages (not their static assets): an uncached render or completion can call upstreams.
const pageLimit = clientRateLimit('always');
web.use('/', pageLimit);
web.use('/p/*', pageLimit);

export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Who asks: a refused or missing credential is a viewer who sees nothing and is asked for a key. */
async function viewerOf(c: Context<AppEnv>): Promise<Viewer> {
  const scope = scopeOf(c);
  try {
    const principal = await authenticateGuarded(c, scope);
    authorize(scope, principal, 'prompts');
    setPrincipal(scope, principal);
    return { principal, needsKey: false };
  } catch (e) {
    if (!(e instanceof AuthError) || e.status !== 401) throw e;
    setPrincipal(scope, NOBODY);
    return { principal: NOBODY, needsKey: true, challenge: e.challenge };
  }
}

/** A 401's headers: the challenge access control gave the refusal (as routes/app.ts's refusal() sends it). */
const challenged = (v: Viewer, headers: Record<string, string>): Record<string, string> =>
  v.challenge ? { ...headers, 'www-authenticate': v.challenge } : headers;

/** Pages that depend on a credential are private to it; the public view's pages are revalidated each time. */
function htmlHeaders(v: Viewer, c: Context<AppEnv>, extra: Record<string, string> = {}): Record<string, string> {
  const authed = v.principal.method !== 'none' || headerOf(c, 'authorization') !== undefined;
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    'cache-control': authed ? 'private, no-cache' : 'no-cache',
    vary: `Accept, ${IDENTITY_HEADERS}`,
    ...extra,
  };
}

/** The JSON stub names nothing personal, but is revalidated like the public pages it shares `/` with. */
const STUB_HEADERS = { 'cache-control': 'no-cache', vary: 'Accept' };

const DOCTYPE = '<!doctype html>';
const render = (el: unknown) => DOCTYPE + String(el);

/** The per-request parts of a cached page: the viewer's name, and live upstream health on the index. */
async function personalise(html: string, v: Viewer, scope: RequestScope): Promise<string> {
  const name = v.principal.name;
  // A replacer function, not a string: `$&` or `$\`` in a viewer's name must stay text, not copy the page.
  const viewer = name && !v.needsKey ? String(ViewerLine({ name })) : '';
  html = html.replace(VIEWER_SLOT, () => viewer);
  if (html.includes(HEALTH_SLOT)) {
    // None for a viewer asked for a key: upstream ids, counts and errors are for readers, as on /status.
    const all = v.needsKey ? ('restricted' as const) : await health(scope.env);
    // Only the upstreams this viewer may see: a guarded one's row would tell how many prompts it hides.
    const rows = typeof all === 'string' ? all : all.filter((r) => principalSees(v.principal, r.groups));
    const healthRows = String(HealthRows({ rows }));
    html = html.replace(HEALTH_SLOT, () => healthRows);
  }
  return html;
}

function chrome(c: Context<AppEnv>, catalog: Catalog, v: Viewer): Chrome {
  return {
    mcpUrl: new URL('/mcp', c.req.url).href,
    generation: catalog.generation,
    updatedAt: catalog.snapshot.updatedAt,
    needsKey: v.needsKey,
  };
}

web.get('/', async (c) => {
  // One URL, two answers: a cache keyed on the URL alone would hand one to the other's client.
  if (!mediaTypes(headerOf(c, 'accept')).has('text/html'))
    return c.json({ name: 'promptgate', mcp: new URL('/mcp', c.req.url).href }, 200, STUB_HEADERS);
  const v = await viewerOf(c);
  const scope = scopeOf(c);
  const filters = filtersOf((k) => c.req.query(k));
  const build = async (view: View, catalog: Catalog, f = NO_FILTERS): Promise<Built> => {
    const { cards, usageKnown } = v.needsKey ? { cards: [], usageKnown: true } : await cardsOf(c.env, view);
    const html = render(IndexPage({ d: { ...chrome(c, catalog, v), prompts: cards, filters: f } }));
    return { html, keep: usageKnown };
  };
  let html: string | undefined;
  if (filtered(filters)) {
    const { catalog, view } = await freshView(scope, v);
    html = (await build(view, catalog, filters)).html;
  } else html = await cachedPage(scope, v, '/', (view, catalog) => build(view, catalog));
  return c.body(await personalise(html ?? '', v, scope), 200, htmlHeaders(v, c));
});

/**
 * An error page is kept by no cache, as every error answer (routes/app.ts): it tells of one moment
 * and one caller (one view's 404, a 401).
 */
const ERROR_PAGE = { 'cache-control': 'no-store' };

/** The page for a name the viewer may not see: the same as for a name that does not exist. */
function notFound(c: Context<AppEnv>, v: Viewer, catalog: Catalog, name: string): Response {
  const html = render(NotFoundPage({ name, generation: catalog.generation, needsKey: v.needsKey }));
  return c.body(html.replace(VIEWER_SLOT, ''), 404, htmlHeaders(v, c, ERROR_PAGE));
}

/** Argument values from the query (web/arg-query.ts), without the page's own parameters. */
const givenOf = (c: Context<AppEnv>, reserved = PAGE_PARAMS) => argumentsIn(c.req.queries(), reserved);

web.get('/p/:name', async (c) => {
  const v = await viewerOf(c);
  const scope = scopeOf(c);
  const name = c.req.param('name');
  const rendered = c.req.query('render') !== undefined;
  const build = async (view: View, catalog: Catalog): Promise<Built | undefined> => {
    const found = v.needsKey ? undefined : await cardFor(c.env, view, name);
    if (!found) return undefined;
    const { card, usageKnown } = found;
    const given = rendered ? givenOf(c) : {};
    const [args, changes, shown] = await Promise.all([
      argumentsOf(scope, view, name),
      changesOf(c.env, view, name, v.principal.admin),
      rendered ? preview(scope, name, given) : undefined,
    ]);
    const { changed, history, known } = changes;
    const d = { ...chrome(c, catalog, v), card, arguments: args.rows, given, preview: shown, changed, history };
    return { html: render(PromptPage({ d })), keep: usageKnown && args.known && known };
  };
  let html: string | undefined;
  if (rendered) {
    const { catalog, view } = await freshView(scope, v);
    html = (await build(view, catalog))?.html;
  } else html = await cachedPage(scope, v, `/p/${name}`, build);
  if (html === undefined) return notFound(c, v, (await freshView(scope, v)).catalog, name);
  return c.body(await personalise(html, v, scope), 200, htmlHeaders(v, c));
});

web.get('/p/:name/preview', async (c) => {
  const v = await viewerOf(c);
  if (v.needsKey)
    return c.body(
      '<p class="error" role="alert">Sign in first.</p>',
      401,
      challenged(v, htmlHeaders(v, c, ERROR_PAGE)),
    );
  const shown = await preview(scopeOf(c), c.req.param('name'), givenOf(c));
  return c.body(String(Messages({ preview: shown })), 200, htmlHeaders(v, c, { 'cache-control': 'private, no-store' }));
});

/** Completions are per viewer and per keystroke: never stored, refused or not. */
const COMPLETION_HEADERS = { 'cache-control': 'private, no-store' };

web.get('/p/:name/complete', async (c) => {
  const v = await viewerOf(c);
  if (v.needsKey) return c.json({ values: [] }, 401, challenged(v, COMPLETION_HEADERS));
  const argument = c.req.query('argument') ?? '';
  const value = c.req.query('value') ?? '';
  const context = givenOf(c, COMPLETION_PARAMS);
  const values = await complete(scopeOf(c), c.req.param('name'), argument, value, context);
  return c.json({ values }, 200, COMPLETION_HEADERS);
});

web.get('/assets/:file', (c) => {
  const a = assetNamed(c.req.param('file'));
  if (!a) return c.notFound();
  return c.body(a.body, 200, {
    'content-type': a.type,
    'cache-control': 'public, max-age=31536000, immutable',
    'x-content-type-options': 'nosniff',
  });
});
