/**
 * The 2024-11-05 HTTP+SSE transport, the upstream client's last fallback:
 * a GET stream whose first event names the POST endpoint; each request is
 * POSTed there and its reply, like every notification, arrives on the
 * stream. One link per connection; replies are matched to requests by id.
 *
 * Apart from http.ts because nothing else there works this way: the
 * Streamable HTTP eras answer each POST in its own response.
 *
 * When the stream ends (closed here, dropped by a proxy, the upstream
 * restarted) no reply can come: every request waiting is failed as `closed`
 * at once rather than at its timeout, and the client opens a new link.
 */
import { guardedFetch, sameOrigin } from './fetch-guard.js';
import { readSse, type UpstreamEvent } from './sse-reader.js';
import { parseJson, unwrap, UpstreamError, type Json } from './wire.js';
import { withTimeout, type Deadline } from './deadline.js';

export class SseLink {
  private readonly pending = new Map<number, { resolve: (msg: Json) => void; reject: (e: unknown) => void }>();
  /** The stream has ended: no reply will come on it. */
  ended = false;
  /** Set by whoever follows the stream's notifications (the client's `listen`). */
  onNotification: ((method: string) => void) | undefined;
  /** Settles when the stream ends, however it ends. */
  readonly done: Promise<void>;

  private constructor(
    readonly endpoint: URL,
    private readonly ctl: AbortController,
    events: AsyncGenerator<UpstreamEvent>,
  ) {
    this.done = this.dispatch(events)
      .catch(() => undefined)
      .finally(() => {
        this.ended = true;
        for (const { reject } of this.pending.values()) reject(this.endedError());
      });
  }

  /**
   * GETs the stream and waits (within the operation's deadline) for its
   * endpoint event. The endpoint must be on the configured origin: the
   * configured headers go with every POST there.
   */
  static async open(url: URL, headers: Record<string, string>, fetchFn: typeof fetch, d: Deadline): Promise<SseLink> {
    const ctl = new AbortController();
    const opened = () =>
      guardedFetch(fetchFn, url, { headers: { ...headers, accept: 'text/event-stream' }, signal: ctl.signal });
    let res: Response;
    try {
      res = await withTimeout(opened(), d, 'opening the HTTP+SSE stream');
    } catch (e) {
      ctl.abort();
      throw e instanceof UpstreamError ? e : new UpstreamError('http', `upstream unreachable: ${String(e)}`);
    }
    if (!res.ok || !res.body) {
      ctl.abort();
      throw new UpstreamError(
        'http',
        `upstream answered neither Streamable HTTP nor HTTP+SSE (GET ${res.status})`,
        res.status,
      );
    }
    const events = readSse(res.body as ReadableStream<Uint8Array>);
    let endpoint: URL | undefined;
    try {
      const first = await withTimeout(events.next(), d, 'waiting for the endpoint event');
      if (first.done || first.value.event !== 'endpoint')
        throw new UpstreamError('protocol', 'HTTP+SSE stream did not start with an endpoint event');
      endpoint = new URL(first.value.data, url);
      if (!sameOrigin(url, endpoint))
        throw new UpstreamError(
          'http',
          `HTTP+SSE endpoint is on another origin (${endpoint.origin}); not followed`,
          undefined,
          undefined,
          'redirect_refused',
        );
    } catch (e) {
      ctl.abort();
      throw e instanceof UpstreamError
        ? e
        : new UpstreamError('protocol', `HTTP+SSE endpoint event is not a URL (${String(e)})`);
    }
    return new SseLink(endpoint, ctl, events);
  }

  private async dispatch(events: AsyncGenerator<UpstreamEvent>): Promise<void> {
    for await (const ev of events) {
      if (ev.event !== 'message' || !ev.data) continue;
      const msg = parseJson(ev);
      // A request of the upstream's own (it may reuse one of our ids) is no reply; its notifications are changes.
      if (typeof msg.method === 'string') {
        if (msg.id === undefined) this.onNotification?.(msg.method);
      } else if (typeof msg.id === 'number') this.pending.get(msg.id)?.resolve(msg);
    }
  }

  /**
   * POSTs one request (through the client's `post`, which owns headers and
   * timeouts) and waits for its reply on the stream.
   */
  async request(
    msg: Json & { id: number; method: string },
    post: (url: URL, body: Json) => Promise<Response>,
    d: Deadline,
  ): Promise<Json> {
    if (this.ended) throw this.endedError();
    const reply = new Promise<Json>((resolve, reject) => this.pending.set(msg.id, { resolve, reject }));
    // Failed with the stream, perhaps before it is awaited below: not an unhandled rejection meanwhile.
    reply.catch(() => undefined);
    try {
      const res = await post(this.endpoint, msg);
      await res.body?.cancel();
      if (!res.ok) throw new UpstreamError('http', `upstream answered ${res.status} to ${msg.method}`, res.status);
      return unwrap(await withTimeout(reply, d, msg.method));
    } finally {
      this.pending.delete(msg.id);
    }
  }

  /** A notification: POSTed, nothing comes back on the stream. */
  async notify(method: string, post: (url: URL, body: Json) => Promise<Response>): Promise<void> {
    await (await post(this.endpoint, { jsonrpc: '2.0', method })).body?.cancel();
  }

  close(): void {
    this.ctl.abort();
  }

  private endedError(): UpstreamError {
    return new UpstreamError('protocol', 'the HTTP+SSE stream ended before the reply', undefined, undefined, 'closed');
  }
}
