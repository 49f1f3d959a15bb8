/**
 * The CEILING: a bare Hono Worker that answers each benchmark request with the
 * response the gateway returns for it, fixed in advance: the same body and the
 * same headers. A POST to `/<scenario>` gets that scenario's body and headers
 * from the CEILING_BODIES and CEILING_HEADERS text bindings (JSON maps of
 * path → body and path → headers, read once); any other POST gets CEILING_BODY
 * (the `prompts/list` response); every GET gets the `GET /prompts` page with
 * CEILING_GET_HEADERS. It reads the request body and nothing else: no JSON
 * parsing per request, no KV, no Durable Object, no crypto. Built with esbuild
 * (lib/build.mjs) and run on Miniflare exactly like the gateway, so the
 * difference between the two is the gateway's own work, for the same bytes.
 */
import { Hono } from 'hono';

const app = new Hono();
const JSON_TYPE = { 'content-type': 'application/json' };
const GET_HEADERS = { ...JSON_TYPE, etag: '"g1-ceiling"', 'cache-control': 'public, max-age=60' };

/** Path → body and path → headers; the routing Hono does on every request anyway picks the entry. */
let bodies;
let heads;
let getHeads;

app.post('*', async (c) => {
  await c.req.arrayBuffer();
  bodies ??= new Map(Object.entries(JSON.parse(c.env.CEILING_BODIES ?? '{}')));
  heads ??= new Map(Object.entries(JSON.parse(c.env.CEILING_HEADERS ?? '{}')));
  return c.body(bodies.get(c.req.path) ?? c.env.CEILING_BODY, 200, heads.get(c.req.path) ?? JSON_TYPE);
});

app.get('*', (c) => {
  getHeads ??= c.env.CEILING_GET_HEADERS ? JSON.parse(c.env.CEILING_GET_HEADERS) : GET_HEADERS;
  return c.body(c.env.CEILING_GET_BODY, 200, getHeads);
});

export default app;
