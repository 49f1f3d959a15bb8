/**
 * A client of one upstream MCP server that speaks every era, falling back
 * as the spec says: modern 2026-07-28 first (per-request `_meta`, Mcp-Method
 * and Mcp-Name headers), then legacy Streamable HTTP (initialize, session id,
 * version header, re-initialize on 404, JSON or SSE replies, priming events
 * ignored), then 2024-11-05 HTTP+SSE (sse-link.ts) when the initialize POST gets 400, 404
 * or 405. The era found is cached per origin for the isolate. On first
 * contact the modern probe and the legacy initialize are sent together
 * (`probe`), and the first request goes out beside `initialized`
 * (`initialized`): a cold legacy upstream costs two round trips, not four.
 *
 * Hand-written rather than the SDK's clients: bundled for workerd, the v1
 * `Client` + `StreamableHTTPClientTransport` is 91.6 KB gzipped and the v2
 * `@modelcontextprotocol/client` 88.3 KB (measured with esbuild, minified),
 * each more than the gateway's whole 80 KB budget; this file needs none of
 * their zod schemas, OAuth or stdio code.
 *
 * Only the headers configured for the upstream are sent, and its own OAuth
 * token when it has an `oauth` entry (oauth.ts; a 401 gets a fresh token
 * and one retry): never anything of the downstream client's (no credential
 * passthrough), and only to the configured origin: redirects are refused (fetch-guard.ts). Each public
 * operation (a request, a whole listing, a listen's handshake) runs against
 * one deadline of the configured timeout, and every reply is read with a
 * byte cap (body.ts).
 */
import type { Implementation } from '@modelcontextprotocol/sdk/types.js';
import {
  CLIENT_CAPABILITIES_META,
  CLIENT_INFO_META,
  LATEST_LEGACY,
  MODERN_VERSION_META,
  MODERN_VERSIONS,
} from '../../lib/versions.js';
import { narrowHints, readHints, type CacheHints } from '../hints.js';
import { readCapped } from './body.js';
import { MAX_UPSTREAM_PROMPTS } from './sanitize.js';
import { guardedFetch } from './fetch-guard.js';
import type { BearerSource } from './oauth.js';
import { SseLink } from './sse-link.js';
import { readSse } from './sse-reader.js';
import {
  deadline,
  headerValue,
  parseJson,
  reply,
  UpstreamError,
  withTimeout,
  type Deadline,
  type Json,
} from './wire.js';

export { UpstreamError, type UpstreamErrorKind, type UpstreamFault } from './wire.js';

export type Era = 'modern' | 'legacy' | 'sse';

/** The revisions this client speaks upstream: the newest of each era the gateway itself serves. */
const MODERN_VERSION = MODERN_VERSIONS[0];
const LEGACY_VERSION = LATEST_LEGACY;
const MODERN_ERRORS = new Set([-32020, -32021, -32022, -32602]);

/** How the gateway introduces itself to every upstream (its object and the cold listing path alike). */
export const GATEWAY_CLIENT_INFO: Implementation = { name: 'promptgate', version: '0.1.0' };

export interface UpstreamClientOptions {
  url: URL;
  headers: Record<string, string>;
  timeoutMs: number;
  clientInfo: Implementation;
  fetch?: typeof fetch;
  /** The upstream's own bearer token (client-credentials grant), sent as its Authorization. */
  auth?: BearerSource;
}

interface Connection {
  era: Era;
  sessionId?: string;
  version?: string;
  /** HTTP+SSE only: the stream replies and notifications arrive on. */
  sse?: SseLink;
  /** Legacy only: `notifications/initialized` still on its way (see `request`). */
  initializing?: Promise<void>;
  /** What the upstream declared (initialize or server/discover); absent when its answer did not say. */
  capabilities?: Json;
}

const eraByOrigin = new Map<string, Era>();

export class UpstreamClient {
  private conn: Connection | undefined;
  /** Ending a session a lost era probe opened (see `probe`). */
  private cleanup: Promise<unknown> | undefined;
  private nextId = 1;
  private readonly fetch: typeof fetch;

  constructor(private readonly opts: UpstreamClientOptions) {
    this.fetch = opts.fetch ?? ((input, init) => fetch(input, init));
  }

  get era(): Era | undefined {
    return this.conn?.era;
  }

  /** Sends one request; a legacy session the upstream forgot (404) is re-initialized once. */
  async request(method: string, params: Json = {}, d: Deadline = deadline(this.opts.timeoutMs)): Promise<Json> {
    const conn = await this.connect(d);
    try {
      return await this.send(conn, method, params, d);
    } catch (e) {
      // The first request went out beside `initialized` (see `initialized`); a server that insists on
      // seeing that notification first refused it. Once it has arrived, ask again, now in order.
      const pending = conn.initializing;
      if (pending && !(e instanceof UpstreamError && e.kind === 'timeout')) {
        await withTimeout(pending, d, 'waiting for the initialized notification');
        return this.send(conn, method, params, d);
      }
      if (!(
        e instanceof UpstreamError &&
        e.kind === 'http' &&
        e.code === 404 &&
        conn.era === 'legacy' &&
        conn.sessionId
      ))
        throw e;
      this.conn = undefined;
      return this.send(await this.connect(d), method, params, d);
    }
  }

  /** Every prompt, following nextCursor (bounded, so a looping upstream cannot hang us). */
  async listPrompts(maxPages = 100): Promise<Json[]> {
    return (await this.listing(maxPages)).prompts;
  }

  /** What the upstream declared when the session began (connecting first if need be); `{}` when unknown. */
  async capabilities(d: Deadline = deadline(this.opts.timeoutMs)): Promise<Json> {
    return (await this.connect(d)).capabilities ?? {};
  }

  /** Every prompt, plus the cache hints of the pages (modern upstreams; each page narrows them); all pages within one deadline. */
  async listing(
    maxPages = 100,
    d: Deadline = deadline(this.opts.timeoutMs),
  ): Promise<{ prompts: Json[]; hints?: CacheHints }> {
    const all: Json[] = [];
    const pageHints: (CacheHints | undefined)[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < maxPages; page++) {
      const r = await this.request('prompts/list', cursor ? { cursor } : {}, d);
      if (!Array.isArray(r.prompts)) throw new UpstreamError('protocol', 'prompts/list result has no prompts array');
      all.push(...(r.prompts as Json[]).slice(0, MAX_UPSTREAM_PROMPTS - all.length));
      pageHints.push(readHints(r));
      cursor = typeof r.nextCursor === 'string' && r.nextCursor ? r.nextCursor : undefined;
      // Past the per-upstream prompt cap further pages would only be dropped: not read at all.
      if (!cursor || all.length >= MAX_UPSTREAM_PROMPTS) {
        const first = pageHints.find((h) => h !== undefined);
        return first ? { prompts: all, hints: narrowHints(first, pageHints) } : { prompts: all };
      }
    }
    throw new UpstreamError('protocol', `prompts/list did not end within ${maxPages} pages`);
  }

  /**
   * Follows the upstream's prompt-list changes until the stream ends or
   * `signal` aborts: a modern `subscriptions/listen`, the legacy standalone
   * GET stream, or the HTTP+SSE stream itself. 'unsupported' means the
   * upstream offers no stream (polling remains). An upstream that declares
   * the Skills extension announces a skills change as resources/list_changed
   * (the SDK's `reload()` does): that is a change too, and a modern listen
   * asks for it.
   */
  async listen(onListChanged: () => void, signal: AbortSignal): Promise<'unsupported' | 'ended'> {
    const conn = await this.connect(deadline(this.opts.timeoutMs));
    const skills = declaresSkills(conn.capabilities);
    const isChange = (method: unknown) =>
      method === 'notifications/prompts/list_changed' || (skills && method === 'notifications/resources/list_changed');
    if (conn.sse) {
      conn.sse.onNotification = (method) => isChange(method) && onListChanged();
      await Promise.race([conn.sse.done, new Promise((r) => signal.addEventListener('abort', r, { once: true }))]);
      return 'ended';
    }
    const res =
      conn.era === 'modern'
        ? await this.http(
            'POST',
            this.opts.url,
            this.envelope(
              'subscriptions/listen',
              { notifications: { promptsListChanged: true, ...(skills && { resourcesListChanged: true }) } },
              conn,
            ),
            this.modernHeaders('subscriptions/listen', {}),
            signal,
          )
        : await this.http(
            'GET',
            this.opts.url,
            undefined,
            { ...this.legacyHeaders(conn), accept: 'text/event-stream' },
            signal,
          );
    if (res.status === 404 && conn.era === 'legacy') this.conn = undefined;
    if (!res.ok || !(res.headers.get('content-type') ?? '').includes('text/event-stream') || !res.body) {
      await res.body?.cancel();
      return res.status === 404 ? 'ended' : 'unsupported';
    }
    try {
      for await (const ev of readSse(res.body as ReadableStream<Uint8Array>)) {
        if (!ev.data) continue;
        const msg = parseJson(ev);
        if (isChange(msg.method)) onListChanged();
        else if ('result' in msg || 'error' in msg) break; // a modern listen ended gracefully
      }
    } catch {
      // A dropped stream is an end like any other: the caller reconnects.
    }
    return 'ended';
  }

  async close(): Promise<void> {
    const conn = this.conn;
    this.conn = undefined;
    await this.cleanup;
    conn?.sse?.close();
    if (conn?.era === 'legacy' && conn.sessionId) {
      await this.http('DELETE', this.opts.url, undefined, { 'mcp-session-id': conn.sessionId }).catch(() => undefined);
    }
  }

  // ---- connection -------------------------------------------------------

  private async connect(d: Deadline): Promise<Connection> {
    if (this.conn) return this.conn;
    const origin = this.opts.url.origin + this.opts.url.pathname;
    const known = eraByOrigin.get(origin);
    let conn: Connection | undefined;
    if (known === undefined) conn = await this.probe(d);
    else {
      if (known === 'modern') conn = await this.tryModern(d);
      if (!conn && known !== 'sse') conn = await this.tryLegacy(d);
    }
    if (!conn) conn = await this.openSse(d);
    eraByOrigin.set(origin, conn.era);
    this.conn = conn;
    return conn;
  }

  private async tryModern(d: Deadline): Promise<Connection | undefined> {
    const probe = this.envelope('server/discover', {}, { era: 'modern' });
    const res = await this.http('POST', this.opts.url, probe, this.modernHeaders('server/discover', {}), d.signal);
    if (res.ok) {
      // A legacy server without sessions may answer 200 with "method not found": that is not modern.
      try {
        const found = await reply(res, probe.id, d);
        return { era: 'modern', ...(isJson(found.capabilities) && { capabilities: found.capabilities }) };
      } catch (e) {
        if (e instanceof UpstreamError && (e.kind === 'timeout' || e.fault === 'too_large')) throw e;
        return undefined;
      }
    }
    const body = (await errorBody(res)) as { error?: { code?: number } } | null;
    // A recognised modern error means "modern, but not like that"; anything else means legacy.
    if (res.status === 400 && MODERN_ERRORS.has(body?.error?.code ?? 0) && body?.error?.code !== -32022)
      return { era: 'modern' };
    return undefined;
  }

  /**
   * First contact with an upstream of unknown era: the modern probe and the
   * legacy initialize go out together, so a legacy upstream (most of them
   * today) costs one round trip less than probing first. The spec's order of
   * preference is kept: when the probe says modern, the legacy session that
   * initialize may have opened is ended in the background and never used.
   */
  private async probe(d: Deadline): Promise<Connection | undefined> {
    // `initialized` follows the initialize reply at once (harmless if modern wins).
    const legacy = this.initialize(d).then((c) => {
      if (c) this.initialized(c);
      return c;
    });
    legacy.catch(() => undefined);
    let modern: Connection | undefined;
    try {
      modern = await this.tryModern(d);
    } catch (e) {
      this.discard(legacy);
      throw e;
    }
    if (modern) {
      this.discard(legacy);
      return modern;
    }
    return legacy;
  }

  /** Ends a legacy session opened by a probe that lost; `close()` waits for it. */
  private discard(legacy: Promise<Connection | undefined>): void {
    this.cleanup = legacy
      .then((c) =>
        c?.sessionId
          ? this.http('DELETE', this.opts.url, undefined, { 'mcp-session-id': c.sessionId }).then((r) =>
              r.body?.cancel(),
            )
          : undefined,
      )
      .catch(() => undefined);
  }

  private async tryLegacy(d: Deadline): Promise<Connection | undefined> {
    const conn = await this.initialize(d);
    if (conn) this.initialized(conn);
    return conn;
  }

  /** initialize; undefined when the endpoint is not Streamable HTTP legacy (400, 404, 405). */
  private async initialize(d: Deadline): Promise<Connection | undefined> {
    const init = this.envelope('initialize', {
      protocolVersion: LEGACY_VERSION,
      capabilities: {},
      clientInfo: this.opts.clientInfo,
    });
    const res = await this.http('POST', this.opts.url, init, {}, d.signal);
    if (res.status === 400 || res.status === 404 || res.status === 405) {
      await res.body?.cancel();
      return undefined;
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new UpstreamError('http', `upstream answered ${res.status} to initialize`, res.status);
    }
    const result = await reply(res, init.id, d);
    return {
      era: 'legacy',
      sessionId: res.headers.get('mcp-session-id') ?? undefined,
      version: String(result.protocolVersion ?? LEGACY_VERSION),
      ...(isJson(result.capabilities) && { capabilities: result.capabilities }),
    };
  }

  /**
   * Sends `notifications/initialized` without waiting for its 202: the first
   * real request goes out beside it, which saves a round trip on every cold
   * legacy upstream (the spec asks the client to send the notification, and
   * to wait for the initialize reply, which it has). The official SDK servers
   * serve that request either way; a server that refuses requests until it
   * has seen the notification gets the request again once the 202 is in
   * (`request`), so the worst case is the old sequence.
   */
  private initialized(conn: Connection): void {
    conn.initializing = this.http(
      'POST',
      this.opts.url,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      this.legacyHeaders(conn),
    )
      .then((note) => note.body?.cancel())
      .catch(() => undefined)
      .finally(() => {
        conn.initializing = undefined;
      });
  }

  /** 2024-11-05: the HTTP+SSE transport (sse-link.ts), then its own initialize handshake. */
  private async openSse(d: Deadline): Promise<Connection> {
    const auth = this.opts.auth && { authorization: `Bearer ${await this.opts.auth.token(d.signal)}` };
    const sse = await SseLink.open(this.opts.url, { ...this.opts.headers, ...auth }, this.fetch, d);
    const conn: Connection = { era: 'sse', sse };
    try {
      const init = await this.send(
        conn,
        'initialize',
        { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: this.opts.clientInfo },
        d,
      );
      conn.version = String(init.protocolVersion ?? '2024-11-05');
      if (isJson(init.capabilities)) conn.capabilities = init.capabilities;
      await sse.notify('notifications/initialized', (url, body) => this.http('POST', url, body, {}, d.signal));
    } catch (e) {
      sse.close();
      throw e;
    }
    return conn;
  }

  // ---- requests ---------------------------------------------------------

  private async send(conn: Connection, method: string, params: Json, d: Deadline): Promise<Json> {
    if (conn.sse)
      return conn.sse.request(
        this.envelope(method, params),
        (url, body) => this.http('POST', url, body, {}, d.signal),
        d,
      );
    const msg = this.envelope(method, params, conn);
    const headers = conn.era === 'modern' ? this.modernHeaders(method, params) : this.legacyHeaders(conn);
    const res = await this.http('POST', this.opts.url, msg, headers, d.signal);
    if (!res.ok) {
      const body = (await errorBody(res)) as { error?: { code: number; message: string; data?: unknown } } | null;
      if (body?.error && res.status !== 404)
        throw new UpstreamError('rpc', body.error.message, body.error.code, body.error.data);
      throw new UpstreamError('http', `upstream answered ${res.status} to ${method}`, res.status);
    }
    return reply(res, msg.id, d);
  }

  private envelope(
    method: string,
    params: Json,
    conn?: Pick<Connection, 'era'>,
  ): Json & { id: number; method: string } {
    // Capabilities a caller relays for one request (a modern client's, for input_required); none otherwise, and never on the legacy wire.
    const { [CLIENT_CAPABILITIES_META]: relayed = {}, ...meta } = (params._meta as Json | undefined) ?? {};
    const { _meta: _given, ...rest } = params;
    const p =
      conn?.era === 'modern'
        ? {
            ...rest,
            _meta: {
              ...meta,
              [MODERN_VERSION_META]: MODERN_VERSION,
              [CLIENT_CAPABILITIES_META]: relayed,
              [CLIENT_INFO_META]: this.opts.clientInfo,
            },
          }
        : Object.keys(meta).length
          ? { ...rest, _meta: meta }
          : rest;
    return { jsonrpc: '2.0', id: this.nextId++, method, params: p };
  }

  private modernHeaders(method: string, params: Json): Record<string, string> {
    const h: Record<string, string> = { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': method };
    if (method === 'prompts/get' && typeof params.name === 'string') h['mcp-name'] = headerValue(params.name);
    if (method === 'resources/read' && typeof params.uri === 'string') h['mcp-name'] = headerValue(params.uri);
    return h;
  }

  private legacyHeaders(conn: Connection): Record<string, string> {
    const h: Record<string, string> = { 'mcp-protocol-version': conn.version ?? LEGACY_VERSION };
    if (conn.sessionId) h['mcp-session-id'] = conn.sessionId;
    return h;
  }

  private async http(
    method: string,
    url: URL,
    body?: unknown,
    extra: Record<string, string> = {},
    signal?: AbortSignal,
  ): Promise<Response> {
    const s = signal ?? AbortSignal.timeout(this.opts.timeoutMs);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const auth = this.opts.auth;
    let token = auth && (await auth.token(s));
    for (let attempt = 0; ; attempt++) {
      const res = await this.once(method, url, payload, extra, s, token);
      // The upstream refused its token (revoked, expired early, keys rotated): one fresh token, one retry.
      if (res.status !== 401 || !auth || token === undefined || attempt > 0) return res;
      await res.body?.cancel().catch(() => undefined);
      auth.rejected(token);
      token = await auth.token(s);
    }
  }

  private async once(
    method: string,
    url: URL,
    payload: string | undefined,
    extra: Record<string, string>,
    signal: AbortSignal,
    token: string | undefined,
  ): Promise<Response> {
    try {
      return await guardedFetch(this.fetch, url, {
        method,
        headers: {
          ...this.opts.headers,
          ...(token !== undefined && { authorization: `Bearer ${token}` }),
          accept: 'application/json, text/event-stream',
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          ...extra,
        },
        body: payload,
        signal,
      });
    } catch (e) {
      if (e instanceof UpstreamError) throw e;
      const timedOut = (e as Error)?.name === 'TimeoutError' || (e as Error)?.name === 'AbortError';
      throw new UpstreamError(
        timedOut ? 'timeout' : 'http',
        timedOut
          ? `upstream did not answer ${method} within ${this.opts.timeoutMs} ms`
          : `upstream unreachable: ${String(e)}`,
      );
    }
  }
}

/** The Skills extension's id (SEP-2640); the gateway's own declaration is rpc/server-info.ts (rpc imports catalog, not back). */
const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether capabilities declare the Skills extension (SEP-2640): `extensions['io.modelcontextprotocol/skills']` is an object. */
export function declaresSkills(capabilities: Json | undefined): boolean {
  const ext = capabilities?.extensions;
  return isJson(ext) && isJson(ext[SKILLS_EXTENSION]);
}

/** The JSON-RPC error an upstream's HTTP error may carry, read within the byte cap; null when there is none. */
async function errorBody(res: Response): Promise<unknown> {
  try {
    return JSON.parse(await readCapped(res, 64 * 1024)) as unknown;
  } catch {
    return null;
  }
}
