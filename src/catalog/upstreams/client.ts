/**
 * A client of one upstream MCP server that speaks every era: what the
 * gateway asks of an upstream (a request, every prompt of its list, its
 * capabilities, its list-change notifications) on one connection, opened by
 * handshake.ts in the era the upstream speaks and reopened once when a legacy
 * upstream forgot its session (404). The HTTP side, with the upstream's own
 * headers and token and nothing of the downstream client's, is http.ts.
 *
 * Hand-written rather than the SDK's clients: bundled for workerd, the v1
 * `Client` + `StreamableHTTPClientTransport` is 91.6 KB gzipped and the v2
 * `@modelcontextprotocol/client` 88.3 KB (esbuild, minified), each nearly the
 * size of the whole gateway; these files need none of their zod, OAuth or stdio
 * code. Each public operation (a request, a whole listing, a listen's
 * handshake) runs against one deadline of the configured timeout.
 */
import type { Implementation } from '@modelcontextprotocol/sdk/types.js';
import { version } from '../../../package.json';
import type { CacheHints } from '../hints.js';
import { Handshake } from './handshake.js';
import { refusedUninitialized } from './legacy-init.js';
import { listenOn, type ListenHost } from './listen.js';
import { allPromptPages } from './prompt-pages.js';
import { UpstreamHttp, type Connection, type Era, type UpstreamClientOptions } from './http.js';
import { redacted } from './redact.js';
import { endSession } from './session-calls.js';
import { UpstreamError, type Json } from './wire.js';
import { deadline, rethrow, uncancellable, unlessCancelled, withTimeout, type Deadline } from './deadline.js';

export { UpstreamError, type UpstreamErrorKind, type UpstreamFault } from './wire.js';
export type { Era, UpstreamClientOptions } from './http.js';

/**
 * How the gateway introduces itself to every upstream (its object and the cold listing path alike),
 * with the same version its own serverInfo names (rpc/server-info.ts).
 */
export const GATEWAY_CLIENT_INFO: Implementation = { name: 'promptgate', version };

export class UpstreamClient {
  private conn: Connection | undefined;
  /** The handshake under way: concurrent first calls share it (each its own would leave all but one open). */
  private connecting: Promise<Connection> | undefined;
  private readonly http: UpstreamHttp;
  private readonly handshake: Handshake;
  /** Aborted by `close`: a listen still reading through this client ends with 'closed'. */
  private readonly closing = new AbortController();

  constructor(private readonly opts: UpstreamClientOptions) {
    this.http = new UpstreamHttp(opts);
    this.handshake = new Handshake(this.http);
  }

  get era(): Era | undefined {
    return this.conn?.era;
  }

  /**
   * Sends one request; a legacy session the upstream forgot (404) is re-initialized once. On a closed
   * client (a call that began or went on after `close`) it runs on a session of its own (`once`).
   */
  request(method: string, params: Json = {}, d: Deadline = deadline(this.opts.timeoutMs)): Promise<Json> {
    return this.scrubbed(this.call(method, params, d));
  }

  /** Each operation's failure leaves through here once (handshake, listen): its text without what we sent. */
  private scrubbed<T>(p: Promise<T>): Promise<T> {
    return p.catch((e: unknown) => {
      throw redacted(e, this.http.sent.all());
    });
  }

  private async call(method: string, params: Json, d: Deadline): Promise<Json> {
    if (this.closing.signal.aborted) return this.once(method, params, d);
    const conn = await this.shared(d);
    try {
      return await this.http.exchange(conn, method, params, d);
    } catch (e) {
      // The first request went out beside `initialized` (handshake.ts); a server that insists on
      // seeing that notification first refused it. Once it has arrived, ask again, now in order; a
      // request the upstream answered, error or not, is never sent twice.
      const pending = conn.initializing;
      if (pending && refusedUninitialized(e)) {
        await withTimeout(pending, d, 'waiting for the initialized notification');
        return this.http.exchange(conn, method, params, d);
      }
      if (!(
        e instanceof UpstreamError &&
        e.kind === 'http' &&
        e.code === 404 &&
        conn.era === 'legacy' &&
        conn.sessionId
      ))
        throw e;
      this.forget(conn);
      if (this.closing.signal.aborted) return this.once(method, params, d);
      return this.http.exchange(await this.shared(d), method, params, d);
    }
  }

  /**
   * The shared connection, for one call: the handshake runs within the call's deadline but not its
   * cancel (other calls wait on it too), while the call itself stops waiting once cancelled.
   */
  private shared(d: Deadline): Promise<Connection> {
    return unlessCancelled(this.connect(uncancellable(d)), d.cancel);
  }

  /**
   * One call on a session of its own, ended right after: a call that outlives its client's close
   * (another call failed and closed it) still gets its answer, and leaves nothing upstream.
   */
  private async once(method: string, params: Json, d: Deadline): Promise<Json> {
    const conn = await this.handshake.connect(d).catch((e: unknown) => rethrow(e, d));
    try {
      return await this.http.exchange(conn, method, params, d);
    } finally {
      // Within the call's deadline: an upstream slow to end its session must not hold the answer longer.
      await withTimeout(this.end(conn), d, 'ending its own session').catch(() => undefined);
    }
  }

  /** Every prompt, following nextCursor (bounded, so a looping upstream cannot hang us). */
  async listPrompts(maxPages = 100): Promise<Json[]> {
    return (await this.listing(maxPages)).prompts;
  }

  /** What the upstream declared when the session began (connecting first if need be); `{}` when unknown. */
  async capabilities(d: Deadline = deadline(this.opts.timeoutMs)): Promise<Json> {
    return (await this.scrubbed(this.connect(d))).capabilities ?? {};
  }

  /** Every prompt, plus the cache hints of the pages (modern upstreams; each page narrows them); all pages within one deadline. */
  listing(
    maxPages = 100,
    d: Deadline = deadline(this.opts.timeoutMs),
  ): Promise<{ prompts: Json[]; hints?: CacheHints }> {
    return allPromptPages((method, params, dl) => this.request(method, params, dl), maxPages, d);
  }

  /** Follows the upstream's prompt-list changes until the stream ends, `signal` aborts or `close` (listen.ts). */
  listen(
    onListChanged: () => void,
    signal: AbortSignal,
    onOpen?: () => void,
  ): Promise<'unsupported' | 'ended' | 'closed'> {
    let used: Connection | undefined;
    const host: ListenHost = {
      http: this.http,
      url: this.opts.url,
      closing: this.closing.signal,
      connect: async () => (used = await this.connect(deadline(this.opts.timeoutMs))),
      forget: () => this.forget(used),
    };
    return this.scrubbed(listenOn(host, onListChanged, signal, onOpen));
  }

  /**
   * Forgets `conn`, a legacy session answered 404, only while it is the shared one: forgetting the
   * replacement another call made would leave that session open upstream, and open yet another.
   */
  private forget(conn: Connection | undefined): void {
    if (conn && this.conn === conn) this.conn = undefined;
  }

  /** Ends the session: its listens ('closed'), its HTTP+SSE stream, and a legacy session with DELETE. */
  async close(): Promise<void> {
    this.closing.abort();
    // A handshake under way is let finish, so that the session it opens is ended here too rather than left upstream.
    await this.connecting?.catch(() => undefined);
    const conn = this.conn;
    this.conn = undefined;
    await this.handshake.cleanup;
    if (conn) await this.end(conn);
  }

  /** Ends one connection: its HTTP+SSE stream, and a legacy session with DELETE. */
  private async end(conn: Connection): Promise<void> {
    conn.sse?.close();
    if (conn.era === 'legacy' && conn.sessionId) await endSession(this.http, conn);
  }

  /**
   * The connection, made once however many calls want it, and never again once the client is closed
   * (a session opened then would outlive it). A JSON-RPC error to the handshake is a
   * fault of the upstream (its `initialize` was refused), not its answer to the call that needed it.
   */
  private connect(d: Deadline): Promise<Connection> {
    if (this.closing.signal.aborted)
      return Promise.reject(
        new UpstreamError('protocol', 'the upstream client was closed', undefined, undefined, 'closed'),
      );
    // An HTTP+SSE link whose stream ended carries no reply any more: a new one is opened.
    if (this.conn?.sse?.ended) this.conn = undefined;
    if (this.conn) return Promise.resolve(this.conn);
    this.connecting ??= this.handshake
      .connect(d)
      .then(
        (c) => (this.conn = c),
        (e: unknown) => {
          if (e instanceof UpstreamError && e.kind === 'rpc')
            throw new UpstreamError('protocol', `initialize refused (JSON-RPC ${e.code ?? 'error'})`);
          throw e;
        },
      )
      .finally(() => (this.connecting = undefined));
    return this.connecting;
  }
}
