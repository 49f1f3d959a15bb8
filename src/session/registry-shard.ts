/**
 * RegistryShard: where streams wait for catalog changes, sharded so one change fans out shard by
 * shard in parallel and no single object holds everyone.
 *
 * Every stream is a hibernatable WebSocket from the Worker holding the client's SSE response:
 * - legacy GET streams, tagged with their session (one per session: a new one replaces the old;
 *   the shard is a hash of the session id, fanout.ts shardIndex; the session's object ends them on
 *   DELETE or expiry);
 * - modern listen streams (a random shard each; no state, since 2026-07-28 has no resume).
 * Idle streams cost nothing: the shard sleeps. What it admits (its cap, one client's share) is
 * shard-admission.ts.
 *
 * A change is one event for everyone: the shard writes it once to its event log (replay-log.ts: the
 * replay a resuming legacy stream needs) and sends one frame, serialized once, to every socket. Nothing is
 * written or called per session, so a change costs O(1) rows per shard, whatever the number of
 * streams. The shard remembers the newest generation it announced, so a retried fan-out never
 * repeats a notification, and a reconnecting stream learns whether it missed one.
 */
import { DurableObject } from 'cloudflare:workers';
import {
  STREAM_LISTEN_HEADER,
  STREAM_SESSION_HEADER,
  STREAM_SINCE_HEADER,
  type CatalogEvent,
  type ShardFrame,
} from './events.js';
import { feedStatus, type DeliveryReport, type ShardCounts } from './fanout.js';
import { ReplayLog } from './replay-log.js';
import { ShardAdmission } from './shard-admission.js';
import { closeSocket, echoClose, sendFrame } from './sockets.js';
import { log } from '../lib/log.js';
import { bounded } from '../lib/bounded.js';

/** How long a stream open at a shard that never announced a change waits for the feed's position. */
const FEED_WAIT_MS = 2_000;

const LISTENER = 'listener';
const STREAM = 'stream';

export class RegistryShard extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    // Sessions ended (DELETE, expiry) until their ids expire: a stream that attaches after its session
    // ended (opened on an isolate whose liveness memo still vouched for it) is refused, not kept for a TTL.
    sql.exec('CREATE TABLE IF NOT EXISTS ended (session TEXT PRIMARY KEY, until INTEGER NOT NULL)');
    // Every session end sweeps the expired rows: by this index it reads those, not every session
    // ended within the last TTL. Made here, not with the table, so shards made before it get it too.
    sql.exec('CREATE INDEX IF NOT EXISTS ended_until ON ended (until)');
    // A table an older schema left in existing shards; nothing reads it.
    sql.exec('DROP TABLE IF EXISTS members');
  }

  /** Its caps: all streams, and one client's (shard-admission.ts). */
  private readonly admission = new ShardAdmission(this.ctx);
  /** What it announced, and the recent changes a resuming stream is replayed (replay-log.ts). */
  private readonly replay = new ReplayLog(this.ctx.storage);

  /**
   * A stream's socket. Legacy streams name their session and, resuming, the generation they last
   * delivered: the events since then follow the `open` frame in the same turn, so none is missed.
   */
  override async fetch(req: Request): Promise<Response> {
    if (req.headers.get('upgrade')?.toLowerCase() !== 'websocket')
      return new Response('expected a WebSocket upgrade', { status: 426 });
    const session = req.headers.get(STREAM_SESSION_HEADER);
    const sinceHeader = req.headers.get(STREAM_SINCE_HEADER);
    const since = sinceHeader === null ? undefined : Number(sinceHeader);
    if (since !== undefined && !Number.isSafeInteger(since)) return new Response('bad position', { status: 400 });
    // A shard that never announced a change may have joined (a larger REGISTRY_SHARDS) after changes
    // its streams missed: the feed says how far they went, for a resuming stream's replay and for
    // every stream's `open` (a listen stream announces a newer one; a resume past it is pulled back).
    // Asked before anything else is read, so what may change meanwhile (a first change delivered, the
    // session ended) is read after it.
    const published = this.replay.announced() === 0 ? await this.feedPublished() : 0;
    if (session !== null && this.hasEnded(session)) return new Response('session ended', { status: 404 });
    // The tag of the stream this socket belongs to: its session, or a listen stream's own id.
    const listen = req.headers.get(STREAM_LISTEN_HEADER);
    const own = session ?? (listen === null ? null : `listen:${listen.slice(0, 64)}`);
    const tags = this.admission.admit(req.headers, own);
    if (tags instanceof Response) return tags;
    const announced = this.replay.announced();
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    if (session === null) this.ctx.acceptWebSocket(server, [LISTENER, ...(own === null ? [] : [own]), ...tags]);
    else {
      this.endStreams(session, 'replaced');
      this.ctx.acceptWebSocket(server, [STREAM, session, ...tags]);
    }
    this.admission.accepted();
    // What this shard announced, or, until its first change, what the feed had when the shard asked.
    sendFrame(server, { t: 'open', generation: announced || published });
    if (since !== undefined) for (const event of this.replay.missed(since, published)) sendFrame(server, event);
    return new Response(null, { status: 101, webSocket: client });
  }

  /**
   * What the feed had announced when this shard first asked, kept for the object's life: every
   * change after it is delivered here too (the shard is in the fan-out), so it never goes stale,
   * and a fresh deployment's stream opens do not each call the one global feed.
   */
  private published: Promise<number> | undefined;
  private feedPublished(): Promise<number> {
    const asked = (this.published ??= bounded(feedStatus(this.env), FEED_WAIT_MS).then((s) => s.published));
    // The feed not answering (failing, or hanging past FEED_WAIT_MS) must not cost the stream: it
    // opens as if nothing was missed, which is all a shard in the fan-out since its start could
    // say, and the next open asks again.
    return asked.catch((e: unknown) => {
      if (this.published === asked) this.published = undefined;
      log.warn('change feed did not answer a stream open; opened without it', { error: String(e) });
      return 0;
    });
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    echoClose(ws, code);
  }

  /**
   * Ends a session's stream (DELETE, expiry) and refuses new ones until `until`, when its id
   * expires and no check can pass any more. A row per ended session, not per change.
   */
  async endSession(sessionId: string, until = 0): Promise<void> {
    this.endStreams(sessionId, 'ended');
    const now = Date.now();
    const sql = this.ctx.storage.sql;
    sql.exec('DELETE FROM ended WHERE until <= ?', now);
    if (until > now) sql.exec('INSERT OR REPLACE INTO ended (session, until) VALUES (?, ?)', sessionId, until);
  }

  private hasEnded(session: string): boolean {
    return (
      (this.ctx.storage.sql.exec<{ until: number }>('SELECT until FROM ended WHERE session = ?', session).toArray()[0]
        ?.until ?? 0) > Date.now()
    );
  }

  private endStreams(sessionId: string, reason: 'ended' | 'replaced'): void {
    for (const ws of this.ctx.getWebSockets(sessionId)) {
      sendFrame(ws, { t: 'end', reason });
      closeSocket(ws, 1000, reason);
    }
  }

  /** What this shard holds now, for /status: socket counts and one small read. */
  async counts(): Promise<ShardCounts> {
    return {
      sessions: this.ctx.getWebSockets(STREAM).length,
      listeners: this.ctx.getWebSockets(LISTENER).length,
      announced: this.replay.announced(),
    };
  }

  /**
   * Announces a change to every stream of this shard: one log row, the announced mark and the
   * log's trim, then one frame for all sockets. A generation already announced (a retried
   * fan-out) sends nothing, so a retry never duplicates a notification. `after`: the generation
   * the feed announced before this one (replay-log.ts, the floor).
   */
  async deliver(event: CatalogEvent, after: number): Promise<DeliveryReport> {
    const report: DeliveryReport = { listeners: 0, streams: 0, rowsWritten: 0 };
    if (event.generation <= this.replay.announced()) return report;
    report.rowsWritten = this.replay.record(event, after);
    const frame = JSON.stringify({ t: 'event', event } satisfies ShardFrame);
    for (const ws of this.ctx.getWebSockets()) {
      try {
        ws.send(frame);
      } catch {
        // Closing: its Worker reconnects and is replayed what it missed.
      }
    }
    report.listeners = this.ctx.getWebSockets(LISTENER).length;
    report.streams = this.ctx.getWebSockets(STREAM).length;
    return report;
  }
}
