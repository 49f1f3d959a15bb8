/**
 * Worker entry: the Hono app as the fetch handler, the cron that squares the
 * catalog with the upstreams configured and re-reads their prompt lists, and
 * the Durable Object classes wrangler.toml binds.
 */
import { scheduledRefresh } from './catalog/upstreams/refresh.js';
import { app } from './routes/app.js';

export { CatalogWriter } from './catalog/catalog-writer.js';
export { UpstreamObject } from './catalog/upstreams/upstream-object.js';
export { ChangeFeed } from './session/change-feed.js';
export { SessionObject } from './session/session-object.js';
export { RegistryShard } from './session/registry-shard.js';
export { UsageStore } from './usage/store.js';

export default {
  fetch: app.fetch,
  scheduled(_controller, env, ctx) {
    ctx.waitUntil(scheduledRefresh(env));
  },
} satisfies ExportedHandler<Env>;
