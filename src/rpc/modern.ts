/**
 * The modern-era entry (2026-07-28): stateless, one JSON-RPC request per
 * POST, every request carrying its own `_meta` envelope. No session is
 * minted or read; Mcp-Session-Id on a modern request is ignored.
 *
 * The checks run in the order the SDK's inbound ladder uses, so a request
 * that is wrong in several ways gets the same answer here as from an SDK
 * server: envelope shape, header/body version, supported version, client
 * capabilities, standard headers, method, then the method itself (whose
 * errors are in-band on HTTP 200).
 */
import { streamHooks } from '../catalog/catch-up.js';
import { currentCatalog } from '../catalog/store.js';
import { openListenStream } from '../session/listen.js';
import { streamLimits } from '../session/stream-limits.js';
import {
  CLIENT_CAPABILITIES_META,
  CLIENT_INFO_META,
  isModernVersion,
  MODERN_VERSION_META,
  SUPPORTED_VERSIONS,
  SERVER_INFO_META,
  SUBSCRIPTION_ID_META,
  type ModernVersion,
} from '../lib/versions.js';
import type { RequestScope } from '../lib/scope.js';
import { credentialCheck } from '../lib/caller.js';
import { clientLabel, type CallFact } from '../lib/record.js';
import { answer } from './cancels.js';
import { callContext } from './context.js';
import { call, factOf, hasMethod, methodNotFoundMessage } from './dispatch.js';
import { accepted, jsonResponse, readMessage, resultMessage, type Message } from './envelope.js';
import { callFailed, ErrorCode, HttpError, invalidParams } from './errors.js';
import { checkMethodHeader, checkStandardHeaders, plainHeaderValue } from './modern-headers.js';
import { serverInfo } from './server-info.js';

type Request = Extract<Message, { kind: 'request' }>;

const bad = (msg: Request, code: number, message: string, data?: unknown) =>
  new HttpError(400, code, message, { data, id: msg.id });

/**
 * The envelope's version, checked against the header and the revisions served here (and a present
 * Mcp-Method against the body's method, in between).
 */
function readVersion(t: RequestScope, msg: Request): ModernVersion {
  // era.ts already refused a request without the claim; here it may still not be a string (-32602 below).
  const meta = (typeof msg.params?._meta === 'object' && msg.params._meta !== null ? msg.params._meta : {}) as Record<
    string,
    unknown
  >;
  t.record.client = clientLabel(meta[CLIENT_INFO_META]);
  // The SDK's inbound order (docs/protocol.md): the envelope's keys, the header's version against
  // the body's, a present Mcp-Method against the body's method, and only then the revision.
  const version = meta[MODERN_VERSION_META];
  if (typeof version !== 'string')
    throw bad(msg, ErrorCode.InvalidParams, `Invalid params: _meta["${MODERN_VERSION_META}"] must be a string`);
  const caps = meta[CLIENT_CAPABILITIES_META];
  if (typeof caps !== 'object' || caps === null || Array.isArray(caps))
    throw bad(
      msg,
      ErrorCode.InvalidParams,
      `Invalid params: _meta["${CLIENT_CAPABILITIES_META}"] is required (an object; {} declares none)`,
    );
  if (t.protocolVersion !== undefined && plainHeaderValue(t.protocolVersion) !== version)
    throw bad(
      msg,
      ErrorCode.HeaderMismatch,
      `Bad Request: the MCP-Protocol-Version header says ${t.protocolVersion.slice(0, 40)} but the body names ${version.slice(0, 40)}`,
      {
        mismatch: { header: 'MCP-Protocol-Version', body: version.slice(0, 40) },
      },
    );
  checkMethodHeader(t, msg.id, msg.method);
  if (!isModernVersion(version))
    throw bad(
      msg,
      ErrorCode.UnsupportedProtocolVersion,
      `Unsupported protocol version ${version.slice(0, 40)}; 2025-era clients may use initialize`,
      {
        // Every version this server speaks (server/discover's list): a dual-era client can fall back to initialize.
        supported: SUPPORTED_VERSIONS,
        requested: version.slice(0, 40),
      },
    );
  return version;
}

async function listen(t: RequestScope, msg: Request, version: ModernVersion, fact: CallFact): Promise<Response> {
  const requested = msg.params?.notifications;
  if (typeof requested !== 'object' || requested === null || Array.isArray(requested)) {
    const refused = invalidParams('subscriptions/listen needs params.notifications (an object)');
    return jsonResponse(callFailed(fact, msg.id, refused));
  }
  // The list changes this deployment has: prompts always, tools with the mirror on, resources with skills on.
  const asked = requested as Record<string, unknown>;
  const honored: Record<string, boolean> = {};
  if (asked.promptsListChanged === true) honored.promptsListChanged = true;
  if (asked.toolsListChanged === true && t.cfg.toolsMirror) honored.toolsListChanged = true;
  if (asked.resourcesListChanged === true && t.cfg.skills) honored.resourcesListChanged = true;
  return openListenStream({
    env: t.env,
    listenId: msg.id,
    honored,
    subscriptionIdKey: SUBSCRIPTION_ID_META,
    endResult: resultMessage(msg.id, {
      resultType: 'complete',
      _meta: { [SUBSCRIPTION_ID_META]: msg.id, [SERVER_INFO_META]: serverInfo(version) },
    }),
    keepaliveMs: t.cfg.sseKeepaliveMs,
    maxMs: t.cfg.listenMaxMs,
    shards: t.cfg.registryShards,
    limits: streamLimits(t),
    since: (await currentCatalog(t)).generation,
    stillValid: credentialCheck(t.principal),
    ...streamHooks(t),
  });
}

/** Synchronous for a warm list (no promise on the hot path); listen and cold paths return a promise. */
export function modernPost(t: RequestScope, body: unknown): Response | Promise<Response> {
  if (Array.isArray(body))
    throw new HttpError(
      400,
      ErrorCode.InvalidRequest,
      'Invalid Request: 2026-07-28 has no JSON-RPC batches; send one message per POST',
    );
  const msg = readMessage(body);
  // Client notifications (notifications/cancelled from a closing listen) and stray responses: nothing to answer.
  if (msg.kind !== 'request') return accepted();
  const fact = factOf(t.record, msg);
  t.record.era = 'modern';
  const version = readVersion(t, msg);
  t.record.version = version;
  checkStandardHeaders(t, msg.id, version, msg.method, msg.params);
  if (msg.method === 'subscriptions/listen') return listen(t, msg, version, fact);
  if (!hasMethod('modern', msg.method, t.cfg))
    throw new HttpError(404, ErrorCode.MethodNotFound, methodNotFoundMessage(msg.method), { id: msg.id });
  return answer(call(msg, callContext(t, 'modern', version), fact));
}
