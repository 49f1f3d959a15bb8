/**
 * The CEILING: a bare Hono Worker that answers every POST with one fixed
 * prompts/list JSON-RPC response (the same bytes the gateway returns for the
 * benchmark catalog, passed in as the CEILING_BODY text binding). It reads
 * the request body and nothing else: no JSON parsing, no KV, no Durable
 * Object, no crypto. Built with esbuild by run.mjs and run on Miniflare
 * exactly like the gateway, so the difference between the two is the
 * gateway's own work.
 */
import { Hono } from 'hono';

const app = new Hono();

app.post('*', async (c) => {
  await c.req.arrayBuffer();
  return c.body(c.env.CEILING_BODY, 200, { 'content-type': 'application/json' });
});

export default app;
