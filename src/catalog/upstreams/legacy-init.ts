/**
 * The session era's handshake, as the gateway's upstream client opens it: `initialize`, the
 * revision it settles on (one this client speaks, or the session it opened is ended), and
 * `notifications/initialized`, sent beside the first request rather than before it.
 */
import { isRecord } from '../../lib/json.js';
import { LEGACY_VERSIONS } from '../../lib/versions.js';
import { type Deadline } from './deadline.js';
import { LEGACY_VERSION, type Connection, type UpstreamHttp } from './http.js';
import { endSession } from './session-calls.js';
import { reply, UpstreamError } from './wire.js';

/** The revisions an upstream's initialize may settle on over Streamable HTTP: the session-era ones, and 2024-11-05. */
const SPOKEN: ReadonlySet<string> = new Set([...LEGACY_VERSIONS, '2024-11-05']);

/** initialize; undefined when the endpoint is not Streamable HTTP legacy (400, 404, 405). */
export async function legacyInitialize(http: UpstreamHttp, d: Deadline): Promise<Connection | undefined> {
  const init = http.envelope('initialize', {
    protocolVersion: LEGACY_VERSION,
    capabilities: {},
    clientInfo: http.opts.clientInfo,
  });
  const res = await http.send('POST', http.opts.url, init, {}, d.signal);
  if (res.status === 400 || res.status === 404 || res.status === 405) {
    await res.body?.cancel();
    return undefined;
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new UpstreamError('http', `upstream answered ${res.status} to initialize`, res.status);
  }
  const result = await reply(res, init.id, d);
  const conn: Connection = {
    era: 'legacy',
    sessionId: res.headers.get('mcp-session-id') ?? undefined,
    version: String(result.protocolVersion ?? LEGACY_VERSION),
    ...(isRecord(result.capabilities) && { capabilities: result.capabilities }),
  };
  // A counter-offer of a revision this client does not speak: disconnect (spec, lifecycle), and end the session it opened.
  if (!SPOKEN.has(conn.version!)) {
    if (conn.sessionId) void endSession(http, conn);
    throw new UpstreamError(
      'protocol',
      `upstream negotiated protocol version "${conn.version!.slice(0, 40)}", which this gateway does not speak`,
    );
  }
  return conn;
}

/**
 * Whether `e` is how a server that has not yet seen `notifications/initialized` refuses a request, so
 * that sending it again once the notification is in cannot run it twice: an HTTP 400 or 404 not read
 * as a JSON-RPC answer (http.ts `exchange`), -32600 (the request broke the lifecycle, so it was not
 * served), or the SDK's -32000 "Server not initialized". Any other error, a JSON-RPC one above all,
 * may be the upstream's real answer to a request it ran (a prompt with side effects or a cost).
 */
export function refusedUninitialized(e: unknown): boolean {
  if (!(e instanceof UpstreamError)) return false;
  if (e.kind === 'http') return e.code === 400 || e.code === 404;
  return e.kind === 'rpc' && (e.code === -32600 || (e.code === -32000 && /initiali[sz]/i.test(e.message)));
}

/**
 * Sends `notifications/initialized` without waiting for its 202: the first
 * real request goes out beside it, which saves a round trip on every cold
 * legacy upstream (the spec asks the client to send the notification, and
 * to wait for the initialize reply, which it has). The official SDK servers
 * serve that request either way; a server that refuses requests until it
 * has seen the notification gets the request again once the 202 is in
 * (client.ts, `request`; only on such a refusal: `refusedUninitialized`),
 * so the worst case is the old sequence.
 */
export function sendInitialized(http: UpstreamHttp, conn: Connection): void {
  conn.initializing = http
    .send('POST', http.opts.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, http.legacyHeaders(conn))
    .then((note) => note.body?.cancel())
    .catch(() => undefined)
    .finally(() => {
      conn.initializing = undefined;
    });
}
