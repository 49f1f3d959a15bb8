/**
 * Through the aggregator, against an official-SDK v2 upstream mounted
 * without a prefix: a prompt that answers `input_required` (2026-07-28
 * multi-round-trip requests) is relayed to modern clients and the retry is
 * forwarded with its responses; the relayed requestState is bound to the
 * prompt and the caller, so a tampered or borrowed state is -32602; a
 * client that did not declare the capability gets 400 -32021 naming it; a legacy client
 * gets a clear -32603 naming the revision it needs. Also: a get before any
 * list finds an unprefixed upstream's prompt, and a local prompt wins a
 * name clash (reported in /status).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modernPost } from '../helpers/protocol.js';
import { conformanceUpstream, INPUT_REQUIRED_PROMPT } from '../helpers/conformance-upstream.js';
import { PROJECT_ROOT, startGateway, type Gateway } from '../helpers/wrangler-dev.js';

const FIXTURES = join(PROJECT_ROOT, 'test/fixtures/conformance');
let gw: Gateway;
let upstream: { url: string; close(): Promise<void> };

/** One modern prompts/get as a 2026-07-28 client sends it. */
async function modernGet(
  params: Record<string, unknown>,
  caps: Record<string, unknown> = { elicitation: { form: {} } },
  headers: Record<string, string> = {},
  status = 200,
) {
  const { body, init } = modernPost('prompts/get', params, caps);
  const id = body.id;
  const res = await fetch(gw.mcpUrl, {
    ...init,
    headers: { ...(init.headers as Record<string, string>), 'mcp-name': String(params.name), ...headers },
  });
  const text = await res.text();
  expect(res.status, text).toBe(status);
  const reply = JSON.parse(text);
  expect(reply.id).toBe(id);
  return reply as { result?: any; error?: { code: number; message: string; data?: any } };
}

beforeAll(async () => {
  upstream = await conformanceUpstream(join(FIXTURES, 'prompts'));
  gw = await startGateway({
    promptsDir: join(FIXTURES, 'local-wins'),
    vars: {
      UPSTREAMS: JSON.stringify([{ id: 'conf', url: upstream.url, prefix: '' }]),
      UPSTREAM_ALLOW_HTTP_LOOPBACK: 'true',
    },
  });
});

afterAll(async () => {
  await gw?.stop();
  await upstream?.close();
});

describe('an upstream mounted without a prefix', () => {
  it('serves its prompt by its own name before any list, and a local prompt keeps a contested name', async () => {
    const got = await modernGet({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } });
    expect(got.result.messages[0].content.text).toBe("Prompt with arguments: arg1='a', arg2='b'");
    const local = await modernGet({ name: 'test_simple_prompt' });
    expect(local.result.messages[0].content.text).toBe('The local test_simple_prompt.');
    const status = (await (await fetch(`${gw.url}/status`)).json()) as any;
    expect(status.upstreams[0]).toMatchObject({ id: 'conf', prefix: '', state: 'healthy' });
    expect(status.collisions).toEqual([{ name: 'test_simple_prompt', upstream: 'conf', winner: 'local' }]);
  });
});

describe('input_required through the gateway', () => {
  it('relays the input requests to a modern client and forwards its retry with the responses', async () => {
    const first = await modernGet({ name: INPUT_REQUIRED_PROMPT });
    expect(first.error).toBeUndefined();
    expect(first.result.resultType).toBe('input_required');
    expect(first.result.inputRequests.user_context).toMatchObject({
      method: 'elicitation/create',
      params: { message: 'What context should the prompt use?' },
    });
    expect(typeof first.result.requestState).toBe('string');
    const retry = await modernGet({
      name: INPUT_REQUIRED_PROMPT,
      inputResponses: { user_context: { action: 'accept', content: { context: 'the incident of 12 May' } } },
      requestState: first.result.requestState,
    });
    expect(retry.error).toBeUndefined();
    expect(retry.result.resultType).toBe('complete');
    expect(retry.result.messages[0].content.text).toBe('Use this context: the incident of 12 May');
  });

  it('refuses a tampered requestState, or one replayed by another caller, with -32602', async () => {
    const first = await modernGet({ name: INPUT_REQUIRED_PROMPT }, undefined, { authorization: 'Bearer alice' });
    const state: string = first.result.requestState;
    const responses = { user_context: { action: 'accept', content: { context: 'x' } } };
    const ok = await modernGet(
      { name: INPUT_REQUIRED_PROMPT, inputResponses: responses, requestState: state },
      undefined,
      { authorization: 'Bearer alice' },
    );
    expect(ok.result?.resultType).toBe('complete');
    // The second-to-last character, always changed (comparing the last one left it as it was 1 time in 64).
    const tampered = `${state.slice(0, -2)}${state.at(-2) === 'A' ? 'B' : 'A'}${state.slice(-1)}`;
    expect(tampered).not.toBe(state);
    for (const [s, who] of [
      [tampered, 'Bearer alice'],
      [state, 'Bearer mallory'],
      ['garbage', 'Bearer alice'],
    ] as const) {
      const r = await modernGet(
        { name: INPUT_REQUIRED_PROMPT, inputResponses: responses, requestState: s },
        undefined,
        { authorization: who },
      );
      expect(r.error?.code, JSON.stringify(r)).toBe(-32602);
      expect(r.error?.message).toMatch(/requestState/);
    }
  });

  it('tells a modern client that did not declare elicitation which capability the prompt needs (400 -32021, id echoed)', async () => {
    const r = await modernGet({ name: INPUT_REQUIRED_PROMPT }, {}, {}, 400);
    expect(r.error?.code).toBe(-32021);
    expect(r.error?.message).toContain(INPUT_REQUIRED_PROMPT);
    expect(r.error?.data?.requiredCapabilities).toHaveProperty('elicitation');
  });

  it('refuses a legacy client with a clear -32603 naming the revision that can use the prompt', async () => {
    const client = new Client({ name: 'legacy', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl)));
    try {
      const err = await client.getPrompt({ name: INPUT_REQUIRED_PROMPT }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(McpError);
      expect((err as McpError).code).toBe(-32603);
      expect((err as McpError).message).toMatch(/upstream "conf".*2026-07-28/);
      // Its ordinary prompts still work for the same client.
      expect((await client.getPrompt({ name: 'test_prompt_with_image' })).messages[0]!.content.type).toBe('image');
    } finally {
      await client.close();
    }
  });
});
