/**
 * Multi-round-trip requests (2026-07-28, SEP-2322) through the aggregator:
 * an upstream's prompts/get may answer `resultType: "input_required"` with
 * `inputRequests` (elicitation, sampling, roots) that only the client can
 * answer.
 *
 * Modern clients: the client's own capabilities for those requests are
 * declared upstream on its behalf (the gateway answers nothing itself), the
 * input requests are relayed as they are, and the client's retry carries
 * its `inputResponses` back upstream with the upstream's `requestState`.
 *
 * The upstream binds its state to whoever called it, and that is always
 * the gateway (client credentials are never forwarded). So the state is
 * wrapped before it reaches the client: an HMAC under SIGNING_SECRET binds
 * it to the upstream, the prompt name the client asked for (what the retry
 * names again; the upstream's own name is this isolate's routing, which an
 * isolate that has the listing and one routing by prefix may see apart for an
 * alias) and the caller's principal
 * (its id, whatever credential named it: a bearer token, an API key, a
 * Cloudflare Access assertion; a refreshed token keeps it; with AUTH=none, a
 * digest of the Authorization the caller sent), and a retry
 * whose state does not verify is -32602 before anything is sent upstream.
 * Another principal cannot replay a client's state through the gateway; the
 * upstream's own bytes are kept verbatim inside.
 *
 * Legacy clients have no way to answer input requests on a prompts/get: the
 * gateway refuses such a prompt with -32603 saying which revision can use
 * it, rather than an opaque upstream error (the request itself is valid, so
 * not -32602; listings cannot tell such prompts apart in advance).
 */
import type { PromptOrigin } from '../../catalog/types.js';
import { callerDigest } from '../../lib/caller.js';
import { mac, safeEqual } from '../../lib/hmac.js';
import { CLIENT_CAPABILITIES_META } from '../../lib/versions.js';
import type { CallContext } from '../context.js';
import type { Params } from '../envelope.js';
import { ErrorCode, invalidParams, RpcError } from '../errors.js';
import { isRecord } from '../../lib/json.js';
import { addMissing, isInputMethod, legacyRefusal, RELAYED_CAPABILITIES, undeclared } from './input-capabilities.js';

const STATE_PURPOSE = 'mrtr-state/v2';
const STATE_PREFIX = 'pg1.';
const MAX_STATE = 16_384;
const MAX_INPUT_REQUESTS = 16;

async function binding(ctx: CallContext, origin: PromptOrigin, asked: string, state: string): Promise<string> {
  // Who the state is bound to: the principal's id, or under AUTH=none what the caller sent as Authorization.
  const who = await callerDigest(ctx.principal, ctx.header('authorization'));
  return mac(ctx.secret, STATE_PURPOSE, JSON.stringify([origin.upstream, asked, who, state]));
}

async function wrapState(ctx: CallContext, origin: PromptOrigin, asked: string, state: string): Promise<string> {
  return `${STATE_PREFIX}${await binding(ctx, origin, asked, state)}.${state}`;
}

async function unwrapState(ctx: CallContext, origin: PromptOrigin, asked: string, wrapped: unknown): Promise<string> {
  const refuse = () =>
    invalidParams('Invalid params: requestState is malformed, or was issued for another prompt or client', {
      requestState: 'invalid',
    });
  if (typeof wrapped !== 'string' || wrapped.length > MAX_STATE + 64 || !wrapped.startsWith(STATE_PREFIX))
    throw refuse();
  const dot = wrapped.indexOf('.', STATE_PREFIX.length);
  if (dot < 0) throw refuse();
  const state = wrapped.slice(dot + 1);
  if (!safeEqual(wrapped.slice(STATE_PREFIX.length, dot), await binding(ctx, origin, asked, state))) throw refuse();
  return state;
}

/**
 * What a prompts/get sends upstream besides name and arguments: for a modern
 * client, its relayable capabilities (in `_meta`, read by the upstream
 * client's envelope) and, on a retry, its input responses and the unwrapped
 * state.
 */
export async function relayedParams(
  ctx: CallContext,
  origin: PromptOrigin,
  params: Params,
): Promise<Record<string, unknown>> {
  if (ctx.era !== 'modern' || !params) return {};
  const out: Record<string, unknown> = {};
  const meta = isRecord(params._meta) ? params._meta : {};
  const caps = isRecord(meta[CLIENT_CAPABILITIES_META]) ? meta[CLIENT_CAPABILITIES_META] : {};
  const relayed = Object.fromEntries(
    RELAYED_CAPABILITIES.filter((k) => Object.hasOwn(caps, k)).map((k) => [k, caps[k]]),
  );
  out._meta = { [CLIENT_CAPABILITIES_META]: relayed };
  if (params.inputResponses !== undefined) {
    if (!isRecord(params.inputResponses)) throw invalidParams('Invalid params: inputResponses must be an object');
    out.inputResponses = params.inputResponses;
  }
  if (params.requestState !== undefined)
    out.requestState = await unwrapState(ctx, origin, String(params.name), params.requestState);
  return out;
}

export function isInputRequired(result: Record<string, unknown>): boolean {
  return result.resultType === 'input_required';
}

/**
 * The upstream's InputRequiredResult as the client gets it: modern clients
 * get the requests and a bound state; legacy clients a refusal. `relayed` is
 * what was sent upstream (relayedParams): a request for a capability the
 * client did not declare is refused here too (400 -32021), whatever the
 * upstream checked.
 */
export async function relayInputRequired(
  ctx: CallContext,
  origin: PromptOrigin,
  asked: string,
  result: Record<string, unknown>,
  relayed: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  // Named as the client asked: an alias hides the upstream's own name (an access boundary).
  const shown = { upstream: origin.upstream, name: asked };
  if (ctx.era !== 'modern') throw legacyRefusal(shown);
  const meta = isRecord(relayed._meta) ? relayed._meta : {};
  const declared = isRecord(meta[CLIENT_CAPABILITIES_META]) ? meta[CLIENT_CAPABILITIES_META] : {};
  const requests = result.inputRequests;
  const state = result.requestState;
  const bad = (why: string) =>
    new RpcError(
      ErrorCode.InternalError,
      `Upstream "${origin.upstream}" sent an invalid input_required result for "${asked}": ${why}`,
    );
  if (requests !== undefined && (!isRecord(requests) || Object.keys(requests).length > MAX_INPUT_REQUESTS))
    throw bad(`inputRequests must be an object of at most ${MAX_INPUT_REQUESTS} requests`);
  if (state !== undefined && (typeof state !== 'string' || state.length > MAX_STATE))
    throw bad(`requestState must be a string of at most ${MAX_STATE} characters`);
  if (requests === undefined && state === undefined) throw bad('neither inputRequests nor requestState');
  const inputRequests: Record<string, unknown> = {};
  const needed: Record<string, unknown> = {};
  for (const [key, r] of Object.entries(requests ?? {})) {
    if (!isRecord(r) || typeof r.method !== 'string' || !isInputMethod(r.method))
      throw bad(`input request "${key.slice(0, 64)}" is not an elicitation, sampling or roots request`);
    addMissing(needed, declared, r.method, r.params);
    inputRequests[key] = { method: r.method, ...(isRecord(r.params) ? { params: r.params } : {}) };
  }
  if (Object.keys(needed).length) throw undeclared(shown, needed);
  const out: Record<string, unknown> = { resultType: 'input_required' };
  if (requests !== undefined) out.inputRequests = inputRequests;
  // A state-only answer still needs one for the retry to be bound; an absent one stays absent.
  if (typeof state === 'string') out.requestState = await wrapState(ctx, origin, asked, state);
  return out;
}
