/**
 * The HTTP side of one upstream: the request envelope and headers of each
 * era, one exchange on an open connection, and every fetch (http-send.ts),
 * with the upstream's own bearer token (one fresh token and one retry on a 401).
 *
 * Only the headers configured for the upstream are sent, and its own OAuth
 * token when it has an `oauth` entry (oauth.ts): never anything of the
 * downstream client's (no credential passthrough), and only to the
 * configured origin: redirects are refused (fetch-guard.ts). Replies are
 * read with a byte cap (body.ts, wire.ts). Which era a connection speaks is
 * decided by handshake.ts; this file only speaks it.
 */
import type { Implementation } from '@modelcontextprotocol/sdk/types.js';
import {
  CLIENT_CAPABILITIES_META,
  CLIENT_INFO_META,
  LATEST_LEGACY,
  MODERN_VERSION_META,
  MODERN_VERSIONS,
} from '../../lib/versions.js';
import { readCapped } from './body.js';
import { SentSecrets } from './redact.js';
import { sendTo, type SendArgs } from './http-send.js';
import type { BearerSource } from './oauth.js';
import type { SseLink } from './sse-link.js';
import { cancel, replySession } from './session-calls.js';
import { headerValue, reply, UpstreamError, type Json } from './wire.js';
import { settled, type Deadline } from './deadline.js';

export type Era = 'modern' | 'legacy' | 'sse';

/** The revisions this client speaks upstream: the newest of each era the gateway itself serves. */
export const MODERN_VERSION = MODERN_VERSIONS[0];
export const LEGACY_VERSION = LATEST_LEGACY;

export interface UpstreamClientOptions {
  url: URL;
  headers: Record<string, string>;
  /** The configured secrets inside `headers` (schema.ts `secrets`): its error text never carries them back. */
  secrets?: readonly string[];
  timeoutMs: number;
  clientInfo: Implementation;
  fetch?: typeof fetch;
  /** The upstream's own bearer token (client-credentials grant), sent as its Authorization. */
  auth?: BearerSource;
}

/** An open connection to the upstream, in the era the handshake found. */
export interface Connection {
  era: Era;
  sessionId?: string;
  version?: string;
  /** HTTP+SSE only: the stream replies and notifications arrive on. */
  sse?: SseLink;
  /** Legacy only: `notifications/initialized` still on its way (client.ts, `request`). */
  initializing?: Promise<void>;
  /** What the upstream declared (initialize or server/discover); absent when its answer did not say. */
  capabilities?: Json;
}

export class UpstreamHttp {
  private nextId = 1;
  readonly fetch: typeof fetch;
  /** What it sent that its error text must not carry back out (redact.ts). */
  readonly sent: SentSecrets;

  constructor(readonly opts: UpstreamClientOptions) {
    this.fetch = opts.fetch ?? ((input, init) => fetch(input, init));
    this.sent = new SentSecrets(opts.headers, opts.secrets);
  }

  /** One request on `conn` and its result; an HTTP error carrying a JSON-RPC error becomes that error. */
  async exchange(conn: Connection, method: string, params: Json, d: Deadline): Promise<Json> {
    const msg = this.envelope(method, params, conn);
    if (conn.sse)
      return conn.sse
        .request(msg, (url, body) => this.send('POST', url, body, {}, d.signal), d)
        .catch((e: unknown) => this.givenUp(conn, msg.id, settled(e, d)));
    const legacy = conn.era === 'legacy';
    const headers = legacy ? this.legacyHeaders(conn) : this.modernHeaders(method, params);
    try {
      const res = await this.send('POST', this.opts.url, msg, headers, d.signal);
      if (!res.ok) {
        const body = (await errorBody(res)) as {
          jsonrpc?: unknown;
          error?: { code?: unknown; message?: unknown; data?: unknown };
        } | null;
        const e = body?.error;
        // A JSON-RPC error is the upstream's answer; any other body (`{"error": "too large"}`) is just an HTTP error.
        // A legacy 404 is a session the upstream forgot (the client starts a new one); a modern 404 with a
        // JSON-RPC body is how 2026-07-28 says "method not found": the upstream's answer, not a fault.
        const answer = res.status !== 404 || (!legacy && body?.jsonrpc === '2.0');
        if (answer && e && typeof e.code === 'number' && typeof e.message === 'string')
          throw new UpstreamError('rpc', e.message, e.code, e.data);
        throw new UpstreamError('http', `upstream answered ${res.status} to ${method}`, res.status);
      }
      return await reply(res, msg.id, d, legacy ? replySession(this, conn, d.signal) : undefined);
    } catch (e) {
      if (legacy) return this.givenUp(conn, msg.id, settled(e, d));
      throw settled(e, d);
    }
  }

  /**
   * A session-era or HTTP+SSE request we stop waiting for (its timeout passed, or its downstream
   * client cancelled it) is cancelled upstream too: a closed connection does not say so in those eras.
   */
  private givenUp(conn: Connection, id: number, e: unknown): never {
    if (e instanceof UpstreamError && (e.kind === 'timeout' || e.kind === 'cancelled'))
      cancel(this, conn, id, e.message);
    throw e;
  }

  envelope(method: string, params: Json, conn?: Pick<Connection, 'era'>): Json & { id: number; method: string } {
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

  modernHeaders(method: string, params: Json): Record<string, string> {
    const h: Record<string, string> = { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': method };
    if (method === 'prompts/get' && typeof params.name === 'string') h['mcp-name'] = headerValue(params.name);
    if (method === 'resources/read' && typeof params.uri === 'string') h['mcp-name'] = headerValue(params.uri);
    return h;
  }

  legacyHeaders(conn: Pick<Connection, 'version' | 'sessionId'>): Record<string, string> {
    const h: Record<string, string> = { 'mcp-protocol-version': conn.version ?? LEGACY_VERSION };
    if (conn.sessionId) h['mcp-session-id'] = conn.sessionId;
    return h;
  }

  /** One HTTP request to the upstream (JSON body when given), with its token; a refused token gets one retry (http-send.ts). */
  send(...args: SendArgs): Promise<Response> {
    return sendTo(this, ...args);
  }
}

/** The JSON-RPC error an upstream's HTTP error may carry, read within the byte cap; null when there is none. */
export async function errorBody(res: Response): Promise<unknown> {
  try {
    return JSON.parse(await readCapped(res, 64 * 1024)) as unknown;
  } catch {
    return null;
  }
}
