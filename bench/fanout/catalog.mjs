/**
 * The catalogs fanout publishes (a 3-prompt one, then the one change: a different 4-prompt
 * set) and the admin write that replaces the whole catalog: `PUT /admin/catalog` ({prompts}),
 * or, on builds whose admin API publishes through the CatalogWriter object instead,
 * `POST /admin/publish?prune=1` (same body, same effect). The first answer decides; the route
 * used is reported. Either must answer 200 with the new integer `generation`.
 */
import assert from 'node:assert/strict';
import { agentText } from '../lib/http.mjs';
import { ADMIN_TOKEN } from './settings.mjs';

const prompt = (name, text, args) => ({
  name,
  description: `Fan-out benchmark prompt ${name}`,
  ...(args ? { arguments: args.map((a) => ({ name: a, description: `the ${a}`, required: true })) } : {}),
  messages: [{ role: 'user', content: { type: 'text', text } }],
});
export const INITIAL_CATALOG = [
  prompt('greet', 'Say hello to {{who}}.', ['who']),
  prompt('summarize', 'Summarize this text:\n\n{{text}}', ['text']),
  prompt('translate', 'Translate into {{lang}}:\n\n{{text}}', ['lang', 'text']),
];
export const CHANGED_CATALOG = [
  prompt('greet', 'Say a warm hello to {{who}}.', ['who']),
  prompt('summarize', 'Summarize this text in three bullet points:\n\n{{text}}', ['text']),
  prompt('translate', 'Translate into {{lang}}:\n\n{{text}}', ['lang', 'text']),
  prompt('review', 'Review this change:\n\n{{diff}}', ['diff']),
];

const CATALOG_ROUTES = [
  { method: 'PUT', path: '/admin/catalog' },
  { method: 'POST', path: '/admin/publish?prune=1' },
];
let catalogRoute = null;

/** `METHOD path` of the route the first write used (null before any). */
export const catalogRouteUsed = () => catalogRoute && `${catalogRoute.method} ${catalogRoute.path}`;

/** Replaces the catalog; resolves the new generation. */
export async function putCatalog(agent, base, prompts) {
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const body = JSON.stringify({ prompts });
  for (const route of catalogRoute ? [catalogRoute] : CATALOG_ROUTES) {
    const r = await agentText(agent, new URL(route.path, base).href, { method: route.method, headers, body });
    // A route this build does not have: try the next one.
    if (!catalogRoute && (r.status === 404 || r.status === 405) && !/admin_disabled/.test(r.text)) continue;
    if (r.status !== 200) throw new Error(`${route.method} ${route.path}: HTTP ${r.status}: ${r.text.slice(0, 500)}`);
    const out = JSON.parse(r.text);
    if (!(Number.isInteger(out.generation) && out.generation > 0))
      throw new Error(`${route.method} ${route.path}: no generation in ${r.text.slice(0, 300)}`);
    if (typeof out.prompts === 'number')
      assert.equal(out.prompts, prompts.length, `${route.method} ${route.path}: prompt count`);
    catalogRoute = route;
    return out.generation;
  }
  throw new Error(
    `no catalog write route answered (tried ${CATALOG_ROUTES.map((r) => `${r.method} ${r.path}`).join(', ')})`,
  );
}
