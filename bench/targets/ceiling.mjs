/**
 * The CEILING: a bare Hono Worker that answers each benchmark request with the
 * bytes the gateway returns for it, fixed in advance. A POST to `/<scenario>`
 * gets that scenario's body from the CEILING_BODIES text binding (a JSON map
 * of path → body, read once); any other POST gets CEILING_BODY (the
 * `prompts/list` response); every GET gets the `GET /prompts` page. It reads
 * the request body and nothing else: no JSON parsing per request, no KV, no
 * Durable Object, no crypto. Built with esbuild (lib/build.mjs) and run on
 * Miniflare exactly like the gateway, so the difference between the two is
 * the gateway's own work, for the same response bytes.
 */
import { Hono } from 'hono';

const app = new Hono();
const JSON_TYPE = { 'content-type': 'application/json' };

/** Path → body; the routing Hono does on every request anyway picks the entry. */
let bodies;

app.post('*', async (c) => {
  await c.req.arrayBuffer();
  bodies ??= new Map(Object.entries(JSON.parse(c.env.CEILING_BODIES ?? '{}')));
  return c.body(bodies.get(c.req.path) ?? c.env.CEILING_BODY, 200, JSON_TYPE);
});

// GET scenarios (the CDN listing): the same page as the gateway's GET /prompts, with the same headers.
app.get('*', (c) =>
  c.body(c.env.CEILING_GET_BODY, 200, {
    'content-type': 'application/json',
    etag: '"g1-ceiling"',
    'cache-control': 'public, max-age=60',
  }),
);

export default app;
