/**
 * What an upstream's prompts/get answer may be, as the client gets it (rpc/methods/remote.ts,
 * catalog/upstreams/wire.ts): the 1,000,000-byte result bound counted in UTF-8 bytes and applied
 * to an input request too, an upstream error's `data` bounded like its message, and a JSON reply
 * to another request refused rather than served as this one's. A real SDK v2 server lists the
 * prompts; the answers that break the rules are written by hand in front of it.
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { expect, it } from 'vitest';
import worker from '../../src/index.js';
import { useHeldUpstream } from '../helpers/held-prompts.js';
import { noChangeStream } from '../helpers/in-isolate-upstream.js';
import { modernPost } from '../helpers/protocol.js';
import { MCP_URL } from '../helpers/worker.js';

const NAMES = ['ok', 'wide', 'ask', 'erred', 'replayed'];

/** Each prompt's hand-written answer to a get with this id; `ok` is the server's own. */
const ANSWERS: Record<string, (id: unknown) => unknown> = {
  // 400,000 characters, 1,200,000 bytes of UTF-8.
  wide: (id) => ({
    jsonrpc: '2.0',
    id,
    result: { messages: [{ role: 'user', content: { type: 'text', text: '日'.repeat(400_000) } }] },
  }),
  ask: (id) => ({
    jsonrpc: '2.0',
    id,
    result: {
      resultType: 'input_required',
      inputRequests: {
        a: {
          method: 'elicitation/create',
          params: { message: 'x'.repeat(1_100_000), requestedSchema: { type: 'object', properties: {} } },
        },
      },
    },
  }),
  erred: (id) => ({
    jsonrpc: '2.0',
    id,
    error: { code: -32603, message: 'broke', data: { dump: 'y'.repeat(100_000) } },
  }),
  replayed: (id) => ({
    jsonrpc: '2.0',
    id: Number(id) + 1000,
    result: { messages: [{ role: 'user', content: { type: 'text', text: 'another request' } }] },
  }),
};

const server = (req: Request): Promise<Response> =>
  createMcpHandler(() => {
    const s = new McpServer({ name: 'bounds-upstream', version: '1.0.0' });
    for (const name of NAMES)
      s.registerPrompt(name, { description: name }, () => ({
        messages: [{ role: 'user', content: { type: 'text', text: name } }],
      }));
    return s;
  }).fetch(req);

useHeldUpstream(async (req) => {
  const refused = noChangeStream(req);
  if (refused) return refused;
  const answer = ANSWERS[req.headers.get('mcp-name') ?? ''];
  if (req.headers.get('mcp-method') !== 'prompts/get' || !answer) return server(req);
  const { id } = await req.json<{ id: unknown }>();
  return new Response(JSON.stringify(answer(id)), { headers: { 'content-type': 'application/json' } });
});

async function get(name: string): Promise<{ status: number; body: any }> {
  const ctx = createExecutionContext();
  const { init } = modernPost('prompts/get', { name }, { elicitation: {} });
  const res = await worker.fetch(new Request(MCP_URL, init), env, ctx);
  const body = await res.json();
  await waitOnExecutionContext(ctx);
  return { status: res.status, body };
}

it('serves a well-behaved answer (the control)', async () => {
  // Listed first, so every get below is routed by the listing.
  const ctx = createExecutionContext();
  const listed = await worker.fetch(new Request(MCP_URL, modernPost('prompts/list').init), env, ctx);
  const text = JSON.stringify(await listed.json());
  expect(text, text.slice(0, 3000)).toContain('held.ask');
  await waitOnExecutionContext(ctx);
  const { body } = await get('held.ok');
  expect(body.result?.messages[0].content.text, JSON.stringify(body)).toBe('ok');
});

it('refuses a result over 1,000,000 bytes of UTF-8, however few characters it has', async () => {
  const { body } = await get('held.wide');
  expect(body.error).toMatchObject({ code: -32603, message: expect.stringMatching(/"held".*over 1000000 bytes/) });
});

it('refuses an input request over the same bound, rather than relaying it', async () => {
  const { body } = await get('held.ask');
  expect(body.result).toBeUndefined();
  expect(body.error).toMatchObject({ code: -32603, message: expect.stringMatching(/over 1000000 bytes/) });
});

it("passes on an upstream error's message, but not 100 KB of its data", async () => {
  const { body } = await get('held.erred');
  expect(body.error.message).toMatch(/"held": broke/);
  expect(JSON.stringify(body.error.data).length).toBeLessThan(1_000);
  expect(body.error.data.omitted).toMatch(/error data, \d+ bytes/);
});

it("refuses a reply to another request instead of serving it as this one's", async () => {
  const { body } = await get('held.replayed');
  expect(body.result).toBeUndefined();
  expect(body.error).toMatchObject({ code: -32603, message: expect.stringMatching(/answered request \d+, not \d+/) });
});
