/**
 * The request that opens a listen's stream (client.ts `listen`) in the upstream's era: the stream
 * its list-change notifications arrive on, asking for skills changes too when the upstream
 * declares the Skills extension.
 */
import type { Connection, UpstreamHttp } from './http.js';

/** The stream a listen reads: a modern `subscriptions/listen` POST, or the legacy session's GET. */
export function openListen(
  http: UpstreamHttp,
  url: URL,
  conn: Connection,
  skills: boolean,
  signal: AbortSignal,
): Promise<Response> {
  if (conn.era !== 'modern')
    return http.send('GET', url, undefined, { ...http.legacyHeaders(conn), accept: 'text/event-stream' }, signal);
  const notifications = { promptsListChanged: true, ...(skills && { resourcesListChanged: true }) };
  return http.send(
    'POST',
    url,
    http.envelope('subscriptions/listen', { notifications }, conn),
    http.modernHeaders('subscriptions/listen', {}),
    signal,
  );
}
