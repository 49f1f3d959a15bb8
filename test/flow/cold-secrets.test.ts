/**
 * A never-listed upstream listed on the read path (catalog/upstreams/cold.ts) cuts the secrets its
 * configuration names out of the upstream's error, as its object's client does: an upstream that
 * echoes its session cookie back in an error must not put it in the writer's `lastError` (shown in
 * /status and logged).
 */
import { env } from 'cloudflare:test';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listing } from '../../src/catalog/listing.js';
import { catalogWriter } from '../../src/catalog/stubs.js';
import { forgetUpstreamConfig, UPSTREAMS_KEY } from '../../src/catalog/upstreams/config.js';
import { mountInIsolate, sdkUpstream } from '../helpers/in-isolate-upstream.js';
import { scope } from '../helpers/principals.js';

const SID = 'c0ld-s1d-v4lue'; // vitest.config.ts binds it as UPSTREAM_TEST_SID
const served = sdkUpstream(() => {
  const server = new McpServer({ name: 'echoes-cookies', version: '1.0.0' });
  server.registerPrompt('plan', { description: 'p' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'plan' } }],
  }));
  return server;
});

/**
 * Its first prompts/list fails naming the session it was sent (the cookie's value, not the whole
 * header, which any client cuts); every later call is served.
 */
let failed = false;
async function upstream(req: Request): Promise<Response> {
  const body = req.method === 'POST' ? await req.clone().json<{ id?: number; method?: string }>() : {};
  if (body.method !== 'prompts/list' || failed) return served(req);
  failed = true;
  const message = `no session ${req.headers.get('cookie')?.split('=')[1] ?? ''} here`;
  return Response.json({ jsonrpc: '2.0', id: body.id, error: { code: -32603, message } });
}

let unmount: () => Promise<void>;
beforeAll(async () => {
  unmount = await mountInIsolate('sid.example', upstream, { id: 'sid', prefix: 'sid' });
  const entry = {
    id: 'sid',
    prefix: 'sid',
    url: 'https://sid.example/mcp',
    headers: { cookie: 'sid=${UPSTREAM_TEST_SID}' },
  };
  await env.PROMPTS.put(UPSTREAMS_KEY, JSON.stringify([entry]));
  forgetUpstreamConfig(env);
});
afterAll(() => unmount());

it("a cold listing's error keeps no configured secret", async () => {
  const q = scope(undefined);
  await listing(q, '2026-07-28', undefined);
  await Promise.all(q.pending);
  expect(failed).toBe(true);
  const states = await catalogWriter(env).upstreams();
  const state = states.find((s) => s.id === 'sid');
  // The cold path's own report: the upstream's words, with the cookie's value cut.
  expect(state?.lastError).toBe('rpc_error: no session [redacted] here');
  expect(JSON.stringify(states)).not.toContain(SID);
});
