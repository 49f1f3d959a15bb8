/**
 * Worker entry: the Hono app as the fetch handler, plus the Durable Object
 * classes wrangler.toml binds.
 */
import { app } from './routes/app.js';

export { CatalogWriter } from './catalog/writer.js';
export { ChangeFeed } from './session/feed.js';
export { SessionObject } from './session/object.js';
export { RegistryShard } from './session/registry.js';

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
