/**
 * The legacy-era entry (2025-11-25 back to 2025-03-26): sessions, batches,
 * and the HTTP statuses the Streamable HTTP transport assigns to each case.
 *
 * The modern era has its own entry beside this one (modern.ts); both share
 * `dispatch.ts` for what methods mean.
 */
import { featuresOf, isLegacyVersion, LEGACY_VERSIONS, type LegacyVersion } from '../lib/versions.js';
import {
  checkSession,
  createSession,
  endSession,
  knownSession,
  markEnded,
  sessionInit,
  sessionLiveness,
} from '../session/sessions.js';
import { parseEventId } from '../session/events.js';
import { shardIndex } from '../session/fanout.js';
import { isStreamKey, newStreamKey } from '../session/stream-key.js';
import { openLegacyStream } from '../session/stream.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { RequestScope } from '../lib/scope.js';
import { credentialCheck, principalIdOf } from '../lib/caller.js';
import { callContext } from './context.js';
import { call, factOf } from './dispatch.js';
import type { CallFact } from '../lib/record.js';
import { accepted, jsonResponse, readMessage, resultMessage, type Message } from './envelope.js';
import { errorJson, ErrorCode, HttpError, RpcError } from './errors.js';
import { initializeResult, readInitialize } from './methods/initialize.js';

export const SESSION_HEADER = 'mcp-session-id';

/** A session id as logged (`mcp.session.id`): ours are at most 190 characters; a client's garbage is cut short. */
const MAX_LOGGED_SESSION_ID = 200;

/** An unsupported MCP-Protocol-Version header is a 400 (spec §2), in a body dual-era clients read as "legacy". */
export function checkVersionHeader(value: string | undefined): void {
  if (value !== undefined && !isLegacyVersion(value)) {
    throw new HttpError(
      400,
      ErrorCode.Transport,
      `Bad Request: unsupported MCP-Protocol-Version "${value.slice(0, 40)}"`,
      {
        data: { supported: LEGACY_VERSIONS },
      },
    );
  }
}

/**
 * The session's revision: synchronous when this isolate has just seen it alive, else asked of
 * checkSession. `id` is the request's id, echoed in the error when the body had one. Every use
 * of a session id (POST, GET stream, DELETE) comes through here, with the caller's principal:
 * a session another principal opened is not found.
 */
function requireSession(t: RequestScope, id?: RequestId): LegacyVersion | Promise<LegacyVersion> {
  t.record.era = 'legacy';
  if (!t.sessionId)
    throw new HttpError(400, ErrorCode.Transport, 'Bad Request: Mcp-Session-Id header is required', { id });
  t.record.sessionId = t.sessionId.slice(0, MAX_LOGGED_SESSION_ID);
  return knownSession(t.secret, t.sessionId, principalIdOf(t.principal), t.record) ?? askSession(t, t.sessionId, id);
}

async function askSession(t: RequestScope, session: string, id: RequestId | undefined): Promise<LegacyVersion> {
  const version = await checkSession(
    t.env,
    t.secret,
    session,
    t.cfg.sessionRecheckMs,
    principalIdOf(t.principal),
    t.record,
  );
  if (!version) throw new HttpError(404, ErrorCode.SessionNotFound, 'Session not found', { id });
  return version;
}

async function initialize(
  t: RequestScope,
  msg: Extract<Message, { kind: 'request' }>,
  fact: CallFact,
): Promise<Response> {
  if (t.sessionId)
    throw new HttpError(400, ErrorCode.InvalidRequest, 'Invalid Request: initialize must not carry Mcp-Session-Id', {
      id: msg.id,
    });
  let init;
  try {
    init = readInitialize(msg.params);
  } catch (e) {
    fact.errorCode = (e as RpcError).code;
    return jsonResponse(errorJson(msg.id, e as RpcError));
  }
  t.record.version = init.version;
  // The id is the session: nothing is stored until the session has state to keep (session/sessions.ts).
  const { id: sessionId, client } = await createSession(t.secret, {
    version: init.version,
    ...(init.clientInfo && { clientInfo: init.clientInfo }),
    ttlMs: t.cfg.sessionTtlMs,
    recheckMs: t.cfg.sessionRecheckMs,
    principal: principalIdOf(t.principal),
  });
  t.record.client = client;
  t.record.sessionId = sessionId.slice(0, MAX_LOGGED_SESSION_ID);
  return jsonResponse(resultMessage(msg.id, initializeResult(init.version, t.cfg)), { [SESSION_HEADER]: sessionId });
}

/**
 * Messages in one batch (2025-03-26 sessions). The spec sets no bound; every item runs at once and
 * may be a call upstream, so a bound keeps one POST within the runtime's subrequest limit.
 */
export const MAX_BATCH = 100;

async function batch(t: RequestScope, items: unknown[]): Promise<Response> {
  if (items.length === 0) throw new HttpError(400, ErrorCode.InvalidRequest, 'Invalid Request: empty batch');
  if (items.length > MAX_BATCH)
    throw new HttpError(
      400,
      ErrorCode.InvalidRequest,
      `Invalid Request: a batch holds at most ${MAX_BATCH} messages, got ${items.length}`,
    );
  if (items.some((m) => (m as { method?: unknown })?.method === 'initialize'))
    throw new HttpError(400, ErrorCode.InvalidRequest, 'Invalid Request: initialize must not be part of a batch');
  const version = await requireSession(t);
  t.record.version = version;
  if (!featuresOf(version).batches)
    throw new HttpError(
      400,
      ErrorCode.InvalidRequest,
      `Invalid Request: JSON-RPC batches are not part of protocol ${version}`,
    );
  const ctx = callContext(t, 'legacy', version, t.sessionId);
  const replies = await Promise.all(
    items.map(async (item) => {
      let msg: Message;
      try {
        msg = readMessage(item);
      } catch (e) {
        const err = e as HttpError;
        return errorJson(err.id, err);
      }
      return msg.kind === 'request' ? call(msg, ctx) : null;
    }),
  );
  const out = replies.filter((r): r is string => r !== null);
  return out.length ? jsonResponse(`[${out.join(',')}]`) : accepted();
}

/** Synchronous for a warm in-session list (no promise on the hot path), like the modern entry. */
export function legacyPost(t: RequestScope, body: unknown): Response | Promise<Response> {
  t.record.era = 'legacy';
  checkVersionHeader(t.protocolVersion);
  if (Array.isArray(body)) return batch(t, body);
  const msg = readMessage(body);
  const fact = msg.kind === 'request' ? factOf(t.record, msg) : undefined;
  if (fact && msg.kind === 'request' && msg.method === 'initialize') return initialize(t, msg, fact);
  const version = requireSession(t, msg.kind === 'request' ? msg.id : undefined);
  return version instanceof Promise
    ? version.then((v) => inSession(t, msg, v, fact))
    : inSession(t, msg, version, fact);
}

function inSession(
  t: RequestScope,
  msg: Message,
  version: LegacyVersion,
  fact: CallFact | undefined,
): Response | Promise<Response> {
  t.record.version = version;
  if (msg.kind !== 'request') return accepted();
  return jsonResponse(call(msg, callContext(t, 'legacy', version, t.sessionId), fact));
}

export async function legacyDelete(t: RequestScope): Promise<Response> {
  checkVersionHeader(t.protocolVersion);
  await requireSession(t);
  const init = await sessionInit(t.secret, t.sessionId!, principalIdOf(t.principal));
  if (!init || !(await endSession(t.env, init)))
    throw new HttpError(404, ErrorCode.SessionNotFound, 'Session not found');
  return new Response(null, { status: 200 });
}

/** GET: the session's standalone SSE stream, new or resumed with Last-Event-ID. No Durable Object is written to open it. */
export async function legacyGet(t: RequestScope, lastEventId: string | undefined): Promise<Response> {
  checkVersionHeader(t.protocolVersion);
  const version = await requireSession(t);
  const init = await sessionInit(t.secret, t.sessionId!, principalIdOf(t.principal));
  if (!init) throw new HttpError(404, ErrorCode.SessionNotFound, 'Session not found');
  let key: string;
  let since: number | undefined;
  if (lastEventId !== undefined) {
    const at = parseEventId(lastEventId);
    if (!at || !(await isStreamKey(t.secret, init.id, at.key)))
      throw new HttpError(
        400,
        ErrorCode.Transport,
        "Bad Request: Last-Event-ID does not name an event of this session's stream",
      );
    ({ key, generation: since } = at);
  } else key = await newStreamKey(t.secret, init.id);
  const credential = credentialCheck(t.principal);
  const session = sessionLiveness(t.env, init);
  const stream = await openLegacyStream({
    env: t.env,
    sessionId: init.id,
    shard: shardIndex(init.id, t.cfg.registryShards),
    key,
    since,
    priming: featuresOf(version).priming,
    keepaliveMs: t.cfg.sseKeepaliveMs,
    retryMs: t.cfg.sseRetryMs,
    // The session (DELETE elsewhere, expiry) and the credential: either ending ends the stream.
    stillValid: credential ? () => allTrue(session(), credential()) : session,
    tools: t.cfg.toolsMirror,
    resources: t.cfg.skills,
  });
  if (stream) return stream;
  // Ended on another isolate after this one's liveness memo vouched for it: its shard knows.
  markEnded(init.id);
  throw new HttpError(404, ErrorCode.SessionNotFound, 'Session not found');
}

function allTrue(a: boolean | Promise<boolean>, b: boolean | Promise<boolean>): boolean | Promise<boolean> {
  if (a === false || b === false) return false;
  if (a === true && b === true) return true;
  return Promise.all([a, b]).then(([x, y]) => x && y);
}
