/**
 * Which client capabilities an upstream's input requests need (2026-07-28, SEP-2322), as the
 * relay (input-required.ts) checks them against what the client declared, and an upstream's own
 * -32021 as the client is told it. The gateway declares upstream only the client's own
 * `elicitation`, `sampling` and `roots`, so those are the only capabilities a client can be asked
 * for; anything else an upstream needs is the other hop's, and its failure.
 */
import type { PromptOrigin } from '../../catalog/types.js';
import { isRecord } from '../../lib/json.js';
import { MODERN_VERSIONS } from '../../lib/versions.js';
import type { CallContext } from '../context.js';
import { ErrorCode, HttpError, RpcError } from '../errors.js';

/** The client capabilities an input request can need; nothing else of the client's is declared upstream. */
export const RELAYED_CAPABILITIES = ['elicitation', 'sampling', 'roots'] as const;

/** A legacy client asked for a prompt that needs input: only the modern revision can carry it. */
export function legacyRefusal(origin: PromptOrigin, data?: unknown): RpcError {
  return new RpcError(
    ErrorCode.InternalError,
    `Prompt "${origin.name}" of upstream "${origin.upstream}" needs input from the client while it is fetched (multi-round-trip requests), which only protocol revision ${MODERN_VERSIONS[0]} can carry; connect with ${MODERN_VERSIONS[0]} to use it`,
    {
      reason: 'input_required',
      requiredRevision: MODERN_VERSIONS[0],
      ...(isRecord(data) && isRecord(data.requiredCapabilities)
        ? { requiredCapabilities: data.requiredCapabilities }
        : {}),
    },
  );
}

/** Which client capability each relayable input request needs. */
const NEEDS: Record<string, (typeof RELAYED_CAPABILITIES)[number]> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/**
 * The part of its capability a request needs beyond the key itself: a URL-mode elicitation needs
 * `elicitation.url` (a bare `elicitation: {}` declares form mode only), a sampling request that
 * offers tools needs `sampling.tools`.
 */
function subCapability(method: string, params: unknown): string | undefined {
  if (!isRecord(params)) return undefined;
  if (method === 'elicitation/create' && params.mode === 'url') return 'url';
  if (method === 'sampling/createMessage' && params.tools !== undefined) return 'tools';
  return undefined;
}

/** Whether `declared` (the client's capabilities) covers `capability`, and its `sub` part when one is needed. */
function covers(declared: Record<string, unknown>, capability: string, sub: string | undefined): boolean {
  if (!Object.hasOwn(declared, capability)) return false;
  const c = declared[capability];
  return sub === undefined || (isRecord(c) && Object.hasOwn(c, sub));
}

/** The spec's capability gate answer (400 -32021), as the upstream itself gives it: the capabilities sent upstream were the client's own. */
export function undeclared(origin: PromptOrigin, needed: Record<string, unknown>): HttpError {
  return new HttpError(
    400,
    ErrorCode.MissingRequiredClientCapability,
    `Prompt "${origin.name}" of upstream "${origin.upstream}" needs input the client did not declare it can give: client capabilities ${JSON.stringify(needed).slice(0, 200)}`,
    { data: { requiredCapabilities: needed } },
  );
}

/** Whether `method` is an input request the relay knows (elicitation, sampling, roots). */
export const isInputMethod = (method: string): boolean => Object.hasOwn(NEEDS, method);

/** Adds to `needed` what of its capability `method` needs that `declared` lacks (nothing when covered). */
export function addMissing(
  needed: Record<string, unknown>,
  declared: Record<string, unknown>,
  method: string,
  params: unknown,
): void {
  const capability = NEEDS[method]!;
  const sub = subCapability(method, params);
  if (covers(declared, capability, sub)) return;
  needed[capability] = { ...(isRecord(needed[capability]) && needed[capability]), ...(sub && { [sub]: {} }) };
}

/**
 * The upstream's -32021 (the client lacks a capability an input request
 * needs, `data.requiredCapabilities`): for a legacy client that is
 * legacyRefusal; for a modern client the same 400 -32021 the upstream gave,
 * naming the prompt, when what it names is a capability the gateway relays
 * (the upstream saw the client's own). A -32021 for something the gateway
 * never relays (the other hop's, not the client's to give) is the
 * upstream's failure, as it came (-32603).
 */
export function translateCapabilityError(ctx: CallContext, origin: PromptOrigin, e: RpcError): RpcError {
  const required = isRecord(e.data) ? e.data.requiredCapabilities : undefined;
  if (!isRecord(required)) return e;
  if (ctx.era !== 'modern') return legacyRefusal(origin, e.data);
  const keys = Object.keys(required);
  if (keys.length === 0 || keys.some((k) => !(RELAYED_CAPABILITIES as readonly string[]).includes(k))) return e;
  return undeclared(origin, required);
}
