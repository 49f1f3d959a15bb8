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
 * Sends `notifications/initialized` without waiting for its 202: the first
 * real request goes out beside it, which saves a round trip on every cold
 * legacy upstream (the spec asks the client to send the notification, and
 * to wait for the initialize reply, which it has). The official SDK servers
 * serve that request either way; a server that refuses requests until it
 * has seen the notification gets the request again once the 202 is in
 * (client.ts, `request`), so the worst case is the old sequence.
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
