/**
 * The 2024-11-05 HTTP+SSE transport, the upstream client's last fallback:
 * a GET stream whose first event names the POST endpoint; each request is
 * POSTed there and its reply, like every notification, arrives on the
 * stream. One link per connection; replies are matched to requests by id.
 *
 * Apart from client.ts because nothing else there works this way: the
 * Streamable HTTP eras answer each POST in its own response.
 */
import { readSse, type UpstreamEvent } from './sse-reader.js';
import { parseJson, unwrap, UpstreamError, withTimeout, type Json } from './wire.js';

export class SseLink {
  private readonly pending = new Map<number, (msg: Json) => void>();
  /** Set by whoever follows the stream's notifications (the client's `listen`). */
  onNotification: ((method: string) => void) | undefined;
  /** Settles when the stream ends, however it ends. */
  readonly done: Promise<void>;

  private constructor(
    readonly endpoint: URL,
    private readonly ctl: AbortController,
    events: AsyncGenerator<UpstreamEvent>,
  ) {
    this.done = this.dispatch(events).catch(() => undefined);
  }

  /** GETs the stream and waits (bounded) for its endpoint event. */
  static async open(url: URL, headers: Record<string, string>, fetchFn: typeof fetch, timeoutMs: number): Promise<SseLink> {
    const ctl = new AbortController();
    const res = await fetchFn(url, { headers: { ...headers, accept: 'text/event-stream' }, signal: ctl.signal });
    if (!res.ok || !res.body) throw new UpstreamError('http', `upstream answered neither Streamable HTTP nor HTTP+SSE (GET ${res.status})`, res.status);
    const events = readSse(res.body);
    const first = await withTimeout(events.next(), timeoutMs, 'waiting for the endpoint event');
    if (first.done || first.value.event !== 'endpoint') {
      ctl.abort();
      throw new UpstreamError('protocol', 'HTTP+SSE stream did not start with an endpoint event');
    }
    return new SseLink(new URL(first.value.data, url), ctl, events);
  }

  private async dispatch(events: AsyncGenerator<UpstreamEvent>): Promise<void> {
    for await (const ev of events) {
      if (ev.event !== 'message' || !ev.data) continue;
      const msg = parseJson(ev);
      if (typeof msg.id === 'number') this.pending.get(msg.id)?.(msg);
      else if (typeof msg.method === 'string') this.onNotification?.(msg.method);
    }
  }

  /**
   * POSTs one request (through the client's `post`, which owns headers and
   * timeouts) and waits for its reply on the stream.
   */
  async request(msg: Json & { id: number; method: string }, post: (url: URL, body: Json) => Promise<Response>, timeoutMs: number): Promise<Json> {
    const reply = new Promise<Json>((resolve) => this.pending.set(msg.id, resolve));
    try {
      const res = await post(this.endpoint, msg);
      await res.body?.cancel();
      if (!res.ok) throw new UpstreamError('http', `upstream answered ${res.status} to ${msg.method}`, res.status);
      return unwrap(await withTimeout(reply, timeoutMs, msg.method));
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
}
