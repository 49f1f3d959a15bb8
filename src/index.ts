/**
 * Worker entry: the Hono app as the fetch handler, plus the Durable Object
 * classes wrangler.toml binds.
 */
import { app } from './routes/app.js';

export { SessionObject } from './session/object.js';

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
