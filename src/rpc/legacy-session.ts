/**
 * The legacy era's session (legacy.ts): minted by initialize, and required, by its
 * Mcp-Session-Id header, of every other use (POST, GET stream, DELETE) under the revision it
 * was opened with. Nothing is stored when a session is minted (session/sessions.ts).
 */
import { isLegacyVersion, LEGACY_VERSIONS, type LegacyVersion } from '../lib/versions.js';
import { checkSession, createSession, knownSession } from '../session/sessions.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { RequestScope } from '../lib/scope.js';
import { principalIdOf } from '../lib/caller.js';
import type { CallFact } from '../lib/record.js';
import { jsonResponse, readableId, resultMessage, type Message } from './envelope.js';
import { callFailed, ErrorCode, HttpError, RpcError, sessionNotFound } from './errors.js';
import { initializeResult, readInitialize } from './methods/initialize.js';

export const SESSION_HEADER = 'mcp-session-id';

/** A session id as logged (`mcp.session.id`): ours are at most 190 characters; a client's garbage is cut short. */
const MAX_LOGGED_SESSION_ID = 200;

/**
 * An unsupported MCP-Protocol-Version header is a 400 (spec §2), in a body dual-era clients read as
 * "legacy", echoing the POST body's id when it names a readable one.
 */
export function checkVersionHeader(value: string | undefined, body?: unknown): void {
  if (value !== undefined && !isLegacyVersion(value)) {
    throw new HttpError(
      400,
      ErrorCode.Transport,
      `Bad Request: unsupported MCP-Protocol-Version "${value.slice(0, 40)}"`,
      {
        data: { supported: LEGACY_VERSIONS },
        id: readableId(body),
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
export function requireSession(t: RequestScope, id?: RequestId): LegacyVersion | Promise<LegacyVersion> {
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
  if (!version) throw sessionNotFound(id);
  return version;
}

export async function initialize(
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
    return jsonResponse(callFailed(fact, msg.id, e as RpcError));
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
