/**
 * The input_required relay's own rules, without an upstream: what a client
 * is shown, what it may send back, and who may send it.
 */
import { describe, expect, it } from 'vitest';
import type { CallContext } from '../../src/rpc/context.js';
import { HttpError, RpcError } from '../../src/rpc/errors.js';
import { translateCapabilityError } from '../../src/rpc/methods/input-capabilities.js';
import { relayedParams, relayInputRequired } from '../../src/rpc/methods/input-required.js';
import { UpstreamMissingCapability } from '../../src/rpc/methods/remote.js';

const origin = { upstream: 'up', name: 'needs_input' };
/** The name the client asked for (an alias here: the upstream's own name is `origin.name`). */
const ASKED = 'up.ask';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
/** A call by `principal` (undefined: anonymous), presenting `authorization` (which the binding must not depend on). */
const ctx = (
  era: 'modern' | 'legacy',
  principal?: string,
  authorization = principal && `Bearer token-of-${principal}`,
) =>
  ({
    era,
    version: era === 'modern' ? '2026-07-28' : '2025-11-25',
    secret: 'test-secret',
    principal: principal === undefined ? undefined : { id: principal, method: 'oauth' },
    header: (n: string) => (n === 'authorization' ? authorization : undefined),
  }) as unknown as CallContext;
const elicit = {
  user_context: {
    method: 'elicitation/create',
    params: { message: 'Which?', requestedSchema: { type: 'object', properties: {} } },
  },
};

async function rejection(p: Promise<unknown>): Promise<RpcError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(RpcError);
  return e as RpcError;
}

describe('relayInputRequired', () => {
  it('relays the requests and a bound state that unwraps to the upstream bytes, for the same caller and prompt only', async () => {
    const sent = await relayedParams(ctx('modern', 'a'), origin, {
      _meta: { [CAPS]: { elicitation: {}, experimental: { x: 1 } } },
    });
    expect(sent).toEqual({ _meta: { [CAPS]: { elicitation: {} } } });
    const out = await relayInputRequired(
      ctx('modern', 'a'),
      origin,
      ASKED,
      { resultType: 'input_required', inputRequests: elicit, requestState: 'v1.upstream.state' },
      sent,
    );
    expect(out.inputRequests).toEqual(elicit);
    const state = out.requestState as string;
    const back = await relayedParams(ctx('modern', 'a'), origin, {
      name: ASKED,
      requestState: state,
      inputResponses: { user_context: { action: 'accept' } },
    });
    expect(back.requestState).toBe('v1.upstream.state');
    // The same principal with another credential (a refreshed token, or an Access assertion, not a
    // bearer token at all) may continue; another principal may not, whatever header it presents.
    for (const same of [ctx('modern', 'a', 'Bearer refreshed'), ctx('modern', 'a', undefined)])
      expect((await relayedParams(same, origin, { name: ASKED, requestState: state })).requestState).toBe(
        'v1.upstream.state',
      );
    expect(
      (
        await rejection(
          relayedParams(ctx('modern', 'b', 'Bearer token-of-a'), origin, { name: ASKED, requestState: state }),
        )
      ).code,
    ).toBe(-32602);
    for (const [c, o, asked] of [
      [ctx('modern', 'b'), origin, ASKED],
      [ctx('modern'), origin, ASKED],
      [ctx('modern', 'a'), origin, 'up.other'],
      [ctx('modern', 'a'), { ...origin, upstream: 'other' }, ASKED],
    ] as const) {
      expect((await rejection(relayedParams(c, o, { name: asked, requestState: state }))).code).toBe(-32602);
    }
    // The retry reaching an isolate that routes the asked name by prefix (no listing, so no alias):
    // its guess of the upstream's name differs, and the state is the same client's all the same.
    const byPrefix = { ...origin, name: 'ask' };
    expect((await relayedParams(ctx('modern', 'a'), byPrefix, { name: ASKED, requestState: state })).requestState).toBe(
      'v1.upstream.state',
    );
  });
  it('refuses an input request for a capability the client did not declare, whatever the upstream checked (400 -32021)', async () => {
    const sent = await relayedParams(ctx('modern'), origin, { _meta: { [CAPS]: { sampling: {} } } });
    const e = await rejection(
      relayInputRequired(ctx('modern'), origin, ASKED, { resultType: 'input_required', inputRequests: elicit }, sent),
    );
    expect(e).toBeInstanceOf(HttpError);
    expect((e as HttpError).status).toBe(400);
    expect(e.code).toBe(-32021);
    expect(e.data).toEqual({ requiredCapabilities: { elicitation: {} } });
  });
  it('needs the part of a capability a request uses: elicitation.url for URL mode, sampling.tools for tools', async () => {
    const url = {
      link: { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in', url: 'https://x' } },
    };
    const tools = { s: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 9, tools: [] } } };
    const asked = (caps: object, inputRequests: object) =>
      relayInputRequired(
        ctx('modern'),
        origin,
        ASKED,
        { resultType: 'input_required', inputRequests },
        {
          _meta: { [CAPS]: caps },
        },
      );
    // A bare `elicitation: {}` declares form mode only; `sampling: {}` sampling without tools.
    expect((await rejection(asked({ elicitation: {} }, url))).data).toEqual({
      requiredCapabilities: { elicitation: { url: {} } },
    });
    expect((await rejection(asked({ sampling: {} }, tools))).data).toEqual({
      requiredCapabilities: { sampling: { tools: {} } },
    });
    expect((await rejection(asked({}, { ...url, ...elicit }))).data).toEqual({
      requiredCapabilities: { elicitation: { url: {} } },
    });
    expect((await asked({ elicitation: { url: {} } }, url)).inputRequests).toEqual(url);
    expect((await asked({ sampling: { tools: {} } }, tools)).inputRequests).toEqual(tools);
    expect((await asked({ elicitation: {} }, elicit)).inputRequests).toEqual(elicit);
  });
  it("passes an upstream's -32021 on only for capabilities the gateway relays", () => {
    const modern = ctx('modern');
    // As remote.ts throws it: the upstream's failure (-32603), its data kept.
    const need = (requiredCapabilities: object) =>
      new UpstreamMissingCapability(-32603, 'Upstream "up": needs', { requiredCapabilities });
    const relayed = translateCapabilityError(modern, origin, need({ elicitation: {} })) as HttpError;
    expect(relayed).toBeInstanceOf(HttpError);
    expect([relayed.status, relayed.code, relayed.data]).toEqual([
      400,
      -32021,
      { requiredCapabilities: { elicitation: {} } },
    ]);
    // The other hop's need (a capability never relayed): the client could not fix it by declaring it.
    const other = need({ extensions: {} });
    expect(translateCapabilityError(modern, origin, other)).toBe(other);
    expect(translateCapabilityError(ctx('legacy'), origin, need({ elicitation: {} })).data).toMatchObject({
      reason: 'input_required',
    });
  });
  it("names the prompt as the client asked for it, never the upstream's own name an alias hides", async () => {
    const asked = (c: CallContext, result: Record<string, unknown>, caps: object = {}) =>
      rejection(relayInputRequired(c, origin, ASKED, result, { _meta: { [CAPS]: caps } }));
    const errors = [
      await asked(ctx('legacy'), { resultType: 'input_required', inputRequests: elicit }),
      await asked(ctx('modern'), { resultType: 'input_required', inputRequests: elicit }),
      await asked(ctx('modern'), { resultType: 'input_required' }, { elicitation: {} }),
    ];
    for (const e of errors) {
      expect(e.message).toContain(`"${ASKED}"`);
      expect(e.message).not.toContain(origin.name);
    }
  });
  it('refuses malformed results with -32603 naming the upstream, and legacy clients with the revision they need', async () => {
    const modern = ctx('modern');
    const caps = { _meta: { [CAPS]: { elicitation: {}, sampling: {}, roots: {} } } };
    for (const bad of [
      { x: { method: 'tools/call' } },
      'nope',
      Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, { method: 'roots/list' }])),
    ]) {
      const e = await rejection(
        relayInputRequired(modern, origin, ASKED, { resultType: 'input_required', inputRequests: bad }, caps),
      );
      expect(e.code).toBe(-32603);
      expect(e.message).toContain('"up"');
    }
    expect(
      (await rejection(relayInputRequired(modern, origin, ASKED, { resultType: 'input_required' }, caps))).code,
    ).toBe(-32603);
    const legacy = await rejection(
      relayInputRequired(ctx('legacy'), origin, ASKED, { resultType: 'input_required', inputRequests: elicit }),
    );
    expect(legacy.code).toBe(-32603);
    expect(legacy.data).toMatchObject({ reason: 'input_required', requiredRevision: '2026-07-28' });
    expect(await relayedParams(ctx('legacy'), origin, { requestState: 'x', inputResponses: {} })).toEqual({});
  });
});
