/**
 * RegistryShard: who is listening, sharded so one catalog change fans out
 * shard by shard in parallel and no single object has to reach everyone.
 *
 * Two kinds of member, one delivery:
 * - legacy sessions with a standalone stream, by a hash of the session id,
 *   kept in SQLite and called through their own session objects (which own
 *   event ids and replay); a member whose session is gone is dropped then,
 *   so the registry heals itself even if a removal was lost;
 * - modern listen streams, held directly as hibernatable WebSockets from the
 *   Workers serving them (a random shard each); no per-listener state, since
 *   2026-07-28 has no resume. Idle listeners cost nothing: the shard sleeps.
 *
 * The shard remembers the newest generation it announced, so a retried
 * fan-out never repeats a notification to listeners, and a reconnecting
 * listener learns whether it missed one.
 */
import { DurableObject } from 'cloudflare:workers';
import type { CatalogEvent } from './events.js';
import type { DeliveryReport, ShardCounts } from './fanout.js';
import { echoClose, sendFrame } from './sockets.js';

const LISTENER = 'listener';

/** Calls into session objects run this many at a time per shard. */
const DELIVERY_CONCURRENCY = 200;

export class RegistryShard extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS members (session TEXT PRIMARY KEY, joined_at INTEGER NOT NULL)');
    ctx.storage.sql.exec(
      'CREATE TABLE IF NOT EXISTS announced (id INTEGER PRIMARY KEY CHECK (id = 0), generation INTEGER NOT NULL)',
    );
  }

  private announced(): number {
    return (
      this.ctx.storage.sql.exec<{ generation: number }>('SELECT generation FROM announced').toArray()[0]?.generation ??
      0
    );
  }

  /** A modern listen stream's socket (the Worker holds the client's SSE response). */
  override async fetch(req: Request): Promise<Response> {
    if (req.headers.get('upgrade')?.toLowerCase() !== 'websocket')
      return new Response('expected a WebSocket upgrade', { status: 426 });
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server, [LISTENER]);
    sendFrame(server, { t: 'open', generation: this.announced() });
    return new Response(null, { status: 101, webSocket: client });
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    echoClose(ws, code);
  }

  /** Tells every listener, and returns how many; none when this generation was already announced (a retried fan-out). */
  private announce(event: CatalogEvent): number {
    if (event.generation <= this.announced()) return 0;
    this.ctx.storage.sql.exec('INSERT OR REPLACE INTO announced (id, generation) VALUES (0, ?)', event.generation);
    const listeners = this.ctx.getWebSockets(LISTENER);
    for (const ws of listeners) sendFrame(ws, { t: 'event', event });
    return listeners.length;
  }

  async add(sessionId: string): Promise<void> {
    this.ctx.storage.sql.exec(
      'INSERT OR IGNORE INTO members (session, joined_at) VALUES (?, ?)',
      sessionId,
      Date.now(),
    );
  }

  async remove(sessionId: string): Promise<void> {
    this.ctx.storage.sql.exec('DELETE FROM members WHERE session = ?', sessionId);
  }

  async members(): Promise<string[]> {
    return this.ctx.storage.sql
      .exec<{ session: string }>('SELECT session FROM members ORDER BY session')
      .toArray()
      .map((r) => r.session);
  }

  /** What this shard holds now, for /status: two cheap reads, no calls out. */
  async counts(): Promise<ShardCounts> {
    const sessions = this.ctx.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM members').toArray()[0]?.n ?? 0;
    return { sessions, listeners: this.ctx.getWebSockets(LISTENER).length };
  }

  /**
   * Hands the event to every member's session object. A failed call is
   * reported (and the whole fan-out retried by the feed); sessions ignore a
   * generation they already have, so a retry never duplicates a notification.
   */
  async deliver(event: CatalogEvent): Promise<DeliveryReport> {
    const listeners = this.announce(event);
    const ids = await this.members();
    const report: DeliveryReport = { listeners, members: ids.length, delivered: 0, dropped: 0, failed: 0 };
    for (let i = 0; i < ids.length; i += DELIVERY_CONCURRENCY) {
      const batch = ids.slice(i, i + DELIVERY_CONCURRENCY);
      const results = await Promise.allSettled(batch.map((id) => this.env.SESSIONS.getByName(id).deliver(event)));
      results.forEach((r, j) => {
        if (r.status === 'rejected') report.failed += 1;
        else if (r.value) report.delivered += 1;
        else {
          report.dropped += 1;
          this.ctx.storage.sql.exec('DELETE FROM members WHERE session = ?', batch[j]!);
        }
      });
    }
    return report;
  }
}
