/**
 * SessionObject: one Durable Object per legacy-era MCP session.
 *
 * Made on first need, not at `initialize` (sessions.ts): the first call that
 * needs state brings what the signed id says (SessionInit). Owns the
 * session's durable state (negotiated revision, log level, timestamps), its
 * idle expiry by alarm, a tombstone for a session ended before its id's TTL
 * ran out, and its
 * standalone SSE stream: the Worker that holds the client's SSE response
 * talks to this object over a hibernatable WebSocket, so a connected but
 * silent client keeps no object awake. Everything a stream needs to survive
 * an eviction or restart is in storage (stream key, sequence, replay log) or
 * in the socket's attachment, never only in memory.
 *
 * Workers ask it only at DELETE, `logging/setLevel`, stream open, and when
 * their liveness memo runs out (SESSION_RECHECK_MS). `lastSeenAt` is written at most
 * every tenth of the TTL, so a chatty client is not a storage write per request.
 */
import { DurableObject } from 'cloudflare:workers';
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import { randomToken } from '../lib/base64url.js';
import type { LegacyVersion } from '../lib/versions.js';
import { eventId, parseEventId, type CatalogEvent } from './events.js';
import { shardFor } from './fanout.js';
import { closeSocket, echoClose, sendFrame } from './sockets.js';
import { log } from '../lib/log.js';
import { configOf } from '../lib/config.js';

export interface SessionState {
  id: string;
  version: LegacyVersion;
  /** When the object was made (the first call that needed state; `initialize` stores nothing). */
  createdAt: number;
  /** From the id: until when an ended session must be remembered (its tombstone). */
  unusedUntil: number;
  lastSeenAt: number;
  ttlMs: number;
  logLevel?: LoggingLevel;
}

/** What every call that needs the session's state brings, from the verified id (sessions.ts). */
export interface SessionInit {
  id: string;
  version: LegacyVersion;
  unusedUntil: number;
}

/** The standalone GET stream: its key, last sequence number and last catalog generation delivered. */
interface StreamState {
  key: string;
  seq: number;
  generation: number;
}

interface LogEntry {
  seq: number;
  at: number;
  event: CatalogEvent;
}

/** Replay entries are one key each (`log:<zero-padded seq>`), so a delivery writes one small entry, not the whole log. */
const logKey = (seq: number) => `log:${String(seq).padStart(12, '0')}`;

/** Replay is bounded in count and age: enough to bridge a reconnect, not an archive. */
export const REPLAY_MAX_EVENTS = 100;
export const REPLAY_MAX_AGE_MS = 60 * 60 * 1000;

export class SessionObject extends DurableObject<Env> {
  /** undefined: not read yet; null: no state (never made, expired, or ended). */
  private state: SessionState | null | undefined;
  /** Ended before its id's TTL ran out: kept (until then) so a later call does not make it anew. */
  private endedUntil: number | undefined;

  private async load(): Promise<SessionState | null> {
    if (this.state === undefined) {
      const got = await this.ctx.storage.get<SessionState | number>(['state', 'ended']);
      this.state = (got.get('state') as SessionState | undefined) ?? null;
      this.endedUntil = got.get('ended') as number | undefined;
    }
    return this.state;
  }

  /**
   * The session's state, made on first need from its id: alive unless it was ended, or its id is
   * older than the TTL with no activity recorded (a session nobody touched after `initialize`).
   */
  private async ensure(init: SessionInit): Promise<SessionState | null> {
    const s = await this.load();
    if (s || this.endedUntil !== undefined) return s;
    const now = Date.now();
    if (now >= init.unusedUntil) return null;
    const ttlMs = configOf(this.env).sessionTtlMs;
    const { id, version, unusedUntil } = init;
    this.state = { id, version, unusedUntil, createdAt: now, lastSeenAt: now, ttlMs };
    await this.ctx.storage.put('state', this.state);
    await this.ctx.storage.setAlarm(now + ttlMs);
    return this.state;
  }

  /** Marks activity; false when the session has ended or expired. */
  async touch(init: SessionInit): Promise<boolean> {
    const s = await this.ensure(init);
    if (!s) return false;
    const now = Date.now();
    if (now - s.lastSeenAt > Math.min(60_000, s.ttlMs / 10)) {
      s.lastSeenAt = now;
      await this.ctx.storage.put('state', s);
    }
    return true;
  }

  async setLogLevel(init: SessionInit, level: LoggingLevel): Promise<boolean> {
    const s = await this.ensure(init);
    if (!s) return false;
    s.logLevel = level;
    await this.ctx.storage.put('state', s);
    return true;
  }

  async describe(): Promise<SessionState | null> {
    return this.load();
  }

  /**
   * Opens (or resumes, with Last-Event-ID) the standalone stream as a
   * WebSocket to the calling Worker. One stream per session: a new one
   * replaces the old, whose Worker is told to close its client stream.
   * 404: no such session. 400: a Last-Event-ID that is not this session's stream.
   */
  override async fetch(req: Request): Promise<Response> {
    if (req.headers.get('upgrade')?.toLowerCase() !== 'websocket')
      return new Response('expected a WebSocket upgrade', { status: 426 });
    const s = await this.load();
    if (!s) return new Response('session not found', { status: 404 });
    const last = req.headers.get('last-event-id');
    let stream = await this.ctx.storage.get<StreamState>('stream');
    let replay: LogEntry[] = [];
    if (last !== null) {
      const at = parseEventId(last);
      if (!stream || !at || at.key !== stream.key || at.seq > stream.seq)
        return new Response('unknown Last-Event-ID', { status: 400 });
      const now = Date.now();
      const log = await this.ctx.storage.list<LogEntry>({ prefix: 'log:', start: logKey(at.seq + 1) });
      replay = [...log.values()].filter((e) => now - e.at < REPLAY_MAX_AGE_MS);
    } else {
      const first = stream === undefined;
      stream = { key: randomToken(6), seq: 0, generation: stream?.generation ?? 0 };
      await this.ctx.storage.delete([...(await this.ctx.storage.list({ prefix: 'log:' })).keys()]);
      await this.ctx.storage.put('stream', stream);
      if (first) await shardFor(this.env, s.id).add(s.id);
    }
    this.closeStreams('replaced');
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server);
    server.serializeAttachment({ key: stream.key });
    sendFrame(server, { t: 'open', id: last ?? eventId(stream.key, stream.seq) });
    for (const e of replay) sendFrame(server, { t: 'event', id: eventId(stream.key, e.seq), event: e.event });
    return new Response(null, { status: 101, webSocket: client });
  }

  /**
   * Delivers a catalog change to this session's stream. Idempotent by
   * generation, so a retried fan-out never duplicates a notification.
   * Returns false when the session is gone (the registry then forgets it).
   */
  async deliver(event: CatalogEvent): Promise<boolean> {
    // One read for both keys; a hibernated object wakes with an empty cache.
    const got = await this.ctx.storage.get<SessionState | StreamState>(['state', 'stream']);
    this.state ??= (got.get('state') as SessionState | undefined) ?? null;
    if (!this.state) return false;
    const stream = got.get('stream') as StreamState | undefined;
    if (!stream || event.generation <= stream.generation) return true;
    stream.seq += 1;
    stream.generation = event.generation;
    const entries: Record<string, StreamState | LogEntry> = {
      stream,
      [logKey(stream.seq)]: { seq: stream.seq, at: Date.now(), event },
    };
    const written = this.ctx.storage.put(entries);
    if (stream.seq > REPLAY_MAX_EVENTS) void this.ctx.storage.delete(logKey(stream.seq - REPLAY_MAX_EVENTS));
    // Sent while the write is in flight: the output gate holds the message until it is durable,
    // so a client never sees an event id that a restart could hand out again.
    for (const ws of this.ctx.getWebSockets())
      sendFrame(ws, { t: 'event', id: eventId(stream.key, stream.seq), event });
    await written;
    return true;
  }

  /**
   * Ends the session and its streams; true when there was one to end. A session ended before its
   * id's TTL ran out leaves a tombstone until then (its id would otherwise still make it anew).
   */
  async end(init: SessionInit): Promise<boolean> {
    const s = await this.ensure(init);
    this.closeStreams('ended');
    if (!s) return false;
    await this.ctx.storage.deleteAll();
    this.state = null;
    await shardFor(this.env, s.id).remove(s.id);
    const until = s.unusedUntil;
    if (Date.now() < until) {
      this.endedUntil = until;
      await this.ctx.storage.put('ended', until);
      await this.ctx.storage.setAlarm(until);
    } else await this.ctx.storage.deleteAlarm();
    return true;
  }

  override async alarm(): Promise<void> {
    const s = await this.load();
    if (!s) {
      // A tombstone whose id has expired on its own: nothing needs to be kept.
      if (this.endedUntil !== undefined && Date.now() >= this.endedUntil) await this.ctx.storage.deleteAll();
      return;
    }
    const expiresAt = s.lastSeenAt + s.ttlMs;
    if (Date.now() >= expiresAt) {
      await this.end(s);
      log.info('session expired', { idleMs: Date.now() - s.lastSeenAt });
    } else {
      await this.ctx.storage.setAlarm(expiresAt);
    }
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    // The Worker's client went away. The stream's state stays for a resume with Last-Event-ID.
    echoClose(ws, code);
  }

  private closeStreams(reason: 'ended' | 'replaced'): void {
    for (const ws of this.ctx.getWebSockets()) {
      sendFrame(ws, { t: 'end', reason });
      closeSocket(ws, 1000, reason);
    }
  }
}
