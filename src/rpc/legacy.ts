/**
 * The legacy-era entry (2025-11-25 back to 2025-03-26): sessions, batches,
 * and the HTTP statuses the Streamable HTTP transport assigns to each case.
 *
 * The session itself (its header, initialize, the check every use makes) is
 * legacy-session.ts, and the GET stream legacy-stream.ts.
 *
 * The modern era has its own entry beside this one (modern.ts); both share
 * `dispatch.ts` for what methods mean.
 */
import { featuresOf, type LegacyVersion } from '../lib/versions.js';
import { endSession, sessionInit } from '../session/sessions.js';
import type { RequestScope } from '../lib/scope.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { principalIdOf } from '../lib/caller.js';
import { answer, CallCancelled, noteCancel, unanswered } from './cancels.js';
import { callContext } from './context.js';
import { call, factOf } from './dispatch.js';
import type { CallFact } from '../lib/record.js';
import { accepted, jsonResponse, readMessage, type Message } from './envelope.js';
import { runBatch } from './batch-runner.js';
import { callFailed, ErrorCode, errorJson, HttpError, RpcError, sessionNotFound } from './errors.js';
import { isRecord } from '../lib/json.js';
import { checkVersionHeader, initialize, requireSession } from './legacy-session.js';

/**
 * Messages in one batch (2025-03-26 sessions). The spec sets no bound; every item runs at once and
 * may be a call upstream, so a bound keeps one POST within the runtime's subrequest limit.
 */
export const MAX_BATCH = 100;

/** An item of a batch whose replies already passed the budget (batch-runner.ts). */
const TOO_MUCH = new RpcError(
  ErrorCode.InternalError,
  'The batch reply is too large: send this request again on its own',
);

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
  // Batches are 2025-03-26 sessions' alone: one with no session is outside any (checklist §2, POST).
  if (t.sessionId === undefined)
    throw new HttpError(
      400,
      ErrorCode.InvalidRequest,
      'Invalid Request: JSON-RPC batches are part of a 2025-03-26 session only; send one with its Mcp-Session-Id',
    );
  const version = await requireSession(t);
  t.record.version = version;
  if (!featuresOf(version).batches)
    throw new HttpError(
      400,
      ErrorCode.InvalidRequest,
      `Invalid Request: JSON-RPC batches are not part of protocol ${version}`,
    );
  /** The item as a message, or its error reply: a call of its own, so the line's error.type and the error counts include it. */
  const read = (item: unknown): Message | string => {
    try {
      return readMessage(item);
    } catch (e) {
      const err = e as HttpError;
      // Batches are 2025-03-26's, whose errors must carry an id: one that could not be read is null.
      return callFailed(t.record.call(methodNameOf(item), err.id), err.id ?? null, err);
    }
  };
  /** Whether the batch held a request: then it is answered, even when every one was cancelled. */
  let asked = false;
  const replies = await runBatch(
    items,
    (item) => {
      const msg = read(item);
      if (typeof msg === 'string') return msg;
      if (msg.kind === 'request') {
        asked = true;
        return inBatch(call(msg, callContext(t, 'legacy', version, t.sessionId, msg.id)), msg.id);
      }
      noteCancel(t, msg);
      return null;
    },
    (item) => {
      const msg = read(item);
      if (typeof msg === 'string') return msg;
      if (msg.kind !== 'request') {
        noteCancel(t, msg);
        return null;
      }
      asked = true;
      // Recorded like any call refused before it ran (its method and prompt on the line).
      return callFailed(factOf(t.record, msg), msg.id, TOO_MUCH);
    },
  );
  const out = replies.filter((r): r is string => r !== null);
  if (out.length) return jsonResponse(`[${out.join(',')}]`);
  return asked ? unanswered() : accepted();
}

/**
 * A call's reply inside a batch: a retryable failure (an object reset under it, dispatch.ts) is
 * that item's in-band error, not a 503 for the whole batch, whose other items have their answers;
 * a call its client cancelled has none.
 */
function inBatch(reply: string | Promise<string>, id: RequestId): string | Promise<string | null> {
  if (typeof reply === 'string') return reply;
  return reply.catch((e: unknown) => {
    if (e instanceof HttpError && e.status === 503) return errorJson(id, e);
    // Cancelled by its client (cancels.ts): the item has no reply.
    if (e instanceof CallCancelled) return null;
    // Anything else ends the whole batch (a session found ended: 404); its error echoes no item's id.
    if (e instanceof HttpError && e.id !== undefined)
      throw new HttpError(e.status, e.code, e.message, { data: e.data, headers: e.headers });
    throw e;
  });
}

/** An unreadable batch item's method, when it names one as a string ('' otherwise). */
const methodNameOf = (item: unknown): string => (isRecord(item) && typeof item.method === 'string' ? item.method : '');

/** Synchronous for a warm in-session list (no promise on the hot path), like the modern entry. */
export function legacyPost(t: RequestScope, body: unknown): Response | Promise<Response> {
  t.record.era = 'legacy';
  checkVersionHeader(t.protocolVersion, body);
  if (Array.isArray(body)) {
    t.record.batch = true;
    return batch(t, body);
  }
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
  if (msg.kind !== 'request') {
    noteCancel(t, msg);
    return accepted();
  }
  return answer(call(msg, callContext(t, 'legacy', version, t.sessionId, msg.id), fact));
}

export async function legacyDelete(t: RequestScope): Promise<Response> {
  checkVersionHeader(t.protocolVersion);
  await requireSession(t);
  const init = await sessionInit(t.secret, t.sessionId!, principalIdOf(t.principal));
  if (!init || !(await endSession(t.env, init))) throw sessionNotFound();
  return new Response(null, { status: 200 });
}
