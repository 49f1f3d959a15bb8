/**
 * A client's listen (client.ts `listen`): following an upstream's list changes on the connection
 * it has, in whichever era that speaks. It needs only the connection, the HTTP side and the
 * client's close, not the client's calls, which is why it stands apart from them; the stream
 * itself is opened and read by listen-stream.ts.
 */
import type { Connection, UpstreamHttp } from './http.js';
import { followListen, openListen } from './listen-stream.js';
import { declaresSkills } from './skill-entries.js';
import { UpstreamError } from './errors.js';

/** What a listen uses of its client. */
export interface ListenHost {
  readonly http: UpstreamHttp;
  readonly url: URL;
  /** Aborted when the client is closed. */
  readonly closing: AbortSignal;
  /** The client's connection, made within the configured timeout if need be. */
  connect(): Promise<Connection>;
  /** Forgets the connection: a legacy session the upstream no longer knows. */
  forget(): void;
}

/**
 * Follows the upstream's prompt-list changes until the stream ends, `signal`
 * aborts or the client is closed: a modern `subscriptions/listen`, the legacy
 * standalone GET stream, or the HTTP+SSE stream itself. 'unsupported' means
 * the upstream offers no stream (polling remains); 'closed' that `close` ended
 * it. `onOpen` runs once the stream is open: what changed before that, the
 * stream cannot tell. An upstream that declares the Skills extension announces
 * a skills change as resources/list_changed (the SDK's `reload()` does): that
 * is a change too, and a modern listen asks for it.
 */
export async function listenOn(
  host: ListenHost,
  onListChanged: () => void,
  signal: AbortSignal,
  onOpen?: () => void,
): Promise<'unsupported' | 'ended' | 'closed'> {
  const stop = AbortSignal.any([signal, host.closing]);
  const outcome = () => (host.closing.aborted ? 'closed' : 'ended');
  // A closed client opens nothing more: a session made now would outlive it.
  if (stop.aborted) return outcome();
  const conn = await host.connect();
  if (stop.aborted) return outcome();
  const skills = declaresSkills(conn.capabilities);
  const isChange = (method: unknown) =>
    method === 'notifications/prompts/list_changed' || (skills && method === 'notifications/resources/list_changed');
  if (conn.sse) {
    conn.sse.onNotification = (method) => isChange(method) && onListChanged();
    onOpen?.();
    await Promise.race([conn.sse.done, new Promise((r) => stop.addEventListener('abort', r, { once: true }))]);
    return outcome();
  }
  const res = await opened(host, conn, skills, stop);
  if (!res) return outcome();
  if (res.status === 404 && conn.era === 'legacy') host.forget();
  return (await followListen(host.http, conn, res, isChange, onListChanged, onOpen)) ?? outcome();
}

/**
 * The listen's response, its headers within the upstream's timeout; undefined when `stop` ended it.
 * Only the wait for the headers is bounded: the stream itself may rightly stay quiet for hours. An
 * upstream that never answers would otherwise hold the follow loop, which then never tries again.
 */
async function opened(
  host: ListenHost,
  conn: Connection,
  skills: boolean,
  stop: AbortSignal,
): Promise<Response | undefined> {
  const ms = host.http.opts.timeoutMs;
  const late = new AbortController();
  const timer = setTimeout(() => late.abort(), ms);
  try {
    return await openListen(host.http, host.url, conn, skills, AbortSignal.any([stop, late.signal]));
  } catch (e) {
    if (stop.aborted) return undefined;
    if (late.signal.aborted)
      throw new UpstreamError('timeout', `upstream timed out opening its change stream (${ms} ms)`);
    throw e;
  } finally {
    clearTimeout(timer);
  }
}
