/**
 * The CEILING: a bare Hono Worker that answers every POST with one fixed
 * prompts/list JSON-RPC response (and every GET with the fixed GET /prompts page) (the same bytes the gateway returns for the
 * benchmark catalog, passed in as the CEILING_BODY text binding). It reads
 * the request body and nothing else: no JSON parsing, no KV, no Durable
 * Object, no crypto. Built with esbuild (lib/build.mjs) and run on Miniflare
 * exactly like the gateway, so the difference between the two is the
 * gateway's own work.
 */
import { Hono } from 'hono';

const app = new Hono();

app.post('*', async (c) => {
  await c.req.arrayBuffer();
  return c.body(c.env.CEILING_BODY, 200, { 'content-type': 'application/json' });
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
