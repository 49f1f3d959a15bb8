/**
 * Which era an upstream speaks, and opening a connection in it, falling back
 * as the spec says: modern 2026-07-28 first (`server/discover`), then legacy
 * Streamable HTTP (initialize, session id), then 2024-11-05 HTTP+SSE
 * (sse-link.ts) when the initialize POST gets 400, 404 or 405. The era found
 * is kept per endpoint URL (origin and path) for the isolate.
 *
 * On first contact the modern probe and the legacy initialize are sent
 * together (`probe`), and `initialized` goes out without waiting for its 202
 * (`initialized`): a cold legacy upstream costs two round trips, not four.
 */
import { isRecord } from '../../lib/json.js';
import { SseLink } from './sse-link.js';
import { errorBody, type Connection, type Era, type UpstreamHttp } from './http.js';
import { legacyInitialize, sendInitialized } from './legacy-init.js';
import { endSession } from './session-calls.js';
import { reply, UpstreamError } from './wire.js';
import { type Deadline } from './deadline.js';

/** Errors by which a modern server says "modern, but not like that" (-32022 aside: see tryModern). */
const MODERN_ERRORS = new Set([-32020, -32021, -32022, -32602]);

const eraByOrigin = new Map<string, Era>();

/** A failure another era could fix: not time, a cancel, credentials or an unreachable host, which every era meets. */
function worthReprobing(e: unknown, d: Deadline): boolean {
  if (d.signal.aborted) return false;
  return !(e instanceof UpstreamError && ['timeout', 'cancelled', 'credentials', 'unreachable'].includes(e.fault));
}

export class Handshake {
  /** Ending a session a lost era probe opened (see `probe`); the client's close() waits for it. */
  cleanup: Promise<unknown> | undefined;

  constructor(private readonly http: UpstreamHttp) {}

  /**
   * A new connection in the era this origin spoke last, else in the first era that answers. A remembered
   * era below modern that fails is forgotten and the eras probed afresh, once: an upstream may move to
   * another transport at the same URL, and the era it left would fail it until the isolate is recycled.
   */
  async connect(d: Deadline): Promise<Connection> {
    const { url } = this.http.opts;
    const origin = url.origin + url.pathname;
    const known = eraByOrigin.get(origin);
    let conn: Connection;
    if (known === undefined) conn = await this.afresh(d);
    else {
      try {
        conn = await this.inEra(known, d);
      } catch (e) {
        // From modern every era has been tried already.
        if (known === 'modern' || !worthReprobing(e, d)) throw e;
        eraByOrigin.delete(origin);
        conn = await this.afresh(d);
      }
    }
    eraByOrigin.set(origin, conn.era);
    return conn;
  }

  private async afresh(d: Deadline): Promise<Connection> {
    return (await this.probe(d)) ?? (await this.openSse(d));
  }

  /** The remembered era, or an older one when it is refused. */
  private async inEra(known: Era, d: Deadline): Promise<Connection> {
    let conn: Connection | undefined;
    if (known === 'modern') conn = await this.tryModern(d);
    if (!conn && known !== 'sse') conn = await this.tryLegacy(d);
    return conn ?? (await this.openSse(d));
  }

  private async tryModern(d: Deadline): Promise<Connection | undefined> {
    const probe = this.http.envelope('server/discover', {}, { era: 'modern' });
    const res = await this.http.send(
      'POST',
      this.http.opts.url,
      probe,
      this.http.modernHeaders('server/discover', {}),
      d.signal,
    );
    if (res.ok) {
      // A legacy server without sessions may answer 200 with "method not found": that is not modern.
      try {
        const found = await reply(res, probe.id, d);
        return { era: 'modern', ...(isRecord(found.capabilities) && { capabilities: found.capabilities }) };
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
    const legacy = legacyInitialize(this.http, d).then((c) => {
      if (c) sendInitialized(this.http, c);
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

  /** Ends a legacy session opened by a probe that lost. */
  private discard(legacy: Promise<Connection | undefined>): void {
    this.cleanup = legacy.then((c) => (c?.sessionId ? endSession(this.http, c) : undefined)).catch(() => undefined);
  }

  private async tryLegacy(d: Deadline): Promise<Connection | undefined> {
    const conn = await legacyInitialize(this.http, d);
    if (conn) sendInitialized(this.http, conn);
    return conn;
  }

  /** 2024-11-05: the HTTP+SSE transport (sse-link.ts), then its own initialize handshake. */
  private async openSse(d: Deadline): Promise<Connection> {
    const { opts } = this.http;
    const auth = opts.auth && { authorization: `Bearer ${this.http.sent.token(await opts.auth.token(d.signal))}` };
    const sse = await SseLink.open(opts.url, { ...opts.headers, ...auth }, this.http.fetch, d);
    const conn: Connection = { era: 'sse', sse };
    try {
      const init = await this.http.exchange(
        conn,
        'initialize',
        { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: opts.clientInfo },
        d,
      );
      conn.version = String(init.protocolVersion ?? '2024-11-05');
      if (isRecord(init.capabilities)) conn.capabilities = init.capabilities;
      await sse.notify('notifications/initialized', (url, body) => this.http.send('POST', url, body, {}, d.signal));
    } catch (e) {
      sse.close();
      throw e;
    }
    return conn;
  }
}
