/**
 * A Worker deployed without SIGNING_SECRET: every route that signs (sessions,
 * cursors) answers 500 in its own error shape (JSON-RPC on /mcp, the
 * `{error: {code, message}}` body on GET /prompts) and logs how to fix it;
 * routes that sign nothing keep serving.
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import worker from '../../src/index.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { ACCEPT, MCP_URL, publish, request } from '../helpers/worker.js';

/** A new env object: its config is parsed afresh (lib/config.ts memoises per env object). */
const unsigned = { ...env, SIGNING_SECRET: '' } as Env;

async function send(req: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(req, unsigned, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

const postMcp = (body: unknown, headers: Record<string, string> = {}) =>
  send(
    new Request(MCP_URL, {
      method: 'POST',
      headers: { accept: ACCEPT, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    }),
  );

const MODERN = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

let logged: string[] = [];
beforeAll(async () => {
  await publish(FIXTURE_PROMPTS);
});
afterEach(() => {
  vi.restoreAllMocks();
  logged = [];
});
const captureErrors = () =>
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void logged.push(a.map(String).join(' ')));

async function expectRpc500(res: Response): Promise<void> {
  expect(res.status).toBe(500);
  expect(res.headers.get('content-type')).toContain('application/json');
  expect(await res.json()).toEqual({
    jsonrpc: '2.0',
    error: { code: -32603, message: 'Server misconfigured: signing secret missing' },
  });
}

describe('without SIGNING_SECRET', () => {
  it('/mcp answers 500 -32603 in both eras and for GET and DELETE, and logs the fix', async () => {
    captureErrors();
    await expectRpc500(
      await postMcp(
        request('initialize', {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 't', version: '1' },
        }),
      ),
    );
    await expectRpc500(await postMcp(request('ping'), { 'mcp-session-id': 'x' }));
    // Even a method that signs nothing: the deployment is broken, and says so at once.
    await expectRpc500(
      await postMcp(request('server/discover', { _meta: META }), {
        'mcp-protocol-version': MODERN,
        'mcp-method': 'server/discover',
      }),
    );
    await expectRpc500(
      await send(new Request(MCP_URL, { headers: { accept: 'text/event-stream', 'mcp-session-id': 'x' } })),
    );
    await expectRpc500(await send(new Request(MCP_URL, { method: 'DELETE', headers: { 'mcp-session-id': 'x' } })));
    expect(
      logged.some((l) => l.includes('"msg":"SIGNING_SECRET is not set; run `wrangler secret put SIGNING_SECRET`"')),
    ).toBe(true);
  });

  it('GET /prompts answers 500 with the plain-HTTP error body', async () => {
    captureErrors();
    const res = await send(new Request('https://gateway.test/prompts'));
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      error: { code: 'misconfigured', message: 'Server misconfigured: signing secret missing' },
    });
  });

  it('GET /prompts/{name} signs nothing and still serves', async () => {
    const res = await send(new Request(`https://gateway.test/prompts/${FIXTURE_PROMPTS[0]!.name}`));
    expect(res.status).toBe(200);
    expect((await res.json<{ prompt: { name: string } }>()).prompt.name).toBe(FIXTURE_PROMPTS[0]!.name);
  });
});
