/**
 * SessionObject: one Durable Object per legacy-era MCP session.
 *
 * Made on first need, not at `initialize` (sessions.ts): the first call that
 * needs state brings what the signed id says (SessionInit). Owns the
 * session's durable state (negotiated revision, log level, timestamps), its
 * idle expiry by alarm, a tombstone for a session ended before its id's TTL
 * ran out. Its standalone stream is not here: it is a socket at the
 * session's registry shard (registry-shard.ts), which this object ends on
 * DELETE and expiry. Catalog changes never pass through here, so a change
 * costs nothing per session.
 *
 * Workers ask it only at DELETE, `logging/setLevel`, when their liveness
 * memo runs out, and when a stream's session could have expired (its id's
 * `unusedUntil`, then its idle TTL: sessions.ts sessionLiveness). `lastSeenAt`
 * is written at most once per tenth of the TTL or per minute, whichever is
 * shorter, so a chatty client is not a storage write per request.
 */
import { DurableObject } from 'cloudflare:workers';
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { LegacyVersion } from '../lib/versions.js';
import { shardCount, shardIndex, shardStub } from './fanout.js';
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

export class SessionObject extends DurableObject<Env> {
  /** undefined: not read yet; null: no state (never made, expired, or ended). */
  private state: SessionState | null | undefined;
  /** Ended before its id's TTL ran out: kept (until then) so a later call does not make it anew. */
  private endedUntil: number | undefined;
  /** The `lastSeenAt` that storage holds (the in-memory one may be newer). */
  private seenWrittenAt: number | undefined;

  private async load(): Promise<SessionState | null> {
    if (this.state === undefined) {
      const got = await this.ctx.storage.get<SessionState | number>(['state', 'ended']);
      this.state = (got.get('state') as SessionState | undefined) ?? null;
      this.endedUntil = got.get('ended') as number | undefined;
      this.seenWrittenAt = this.state?.lastSeenAt;
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
    this.seenWrittenAt = now;
    await this.ctx.storage.put('state', this.state);
    await this.ctx.storage.setAlarm(now + ttlMs);
    return this.state;
  }

  /**
   * Marks activity; false when the session has ended or expired. A session idle past its TTL whose
   * alarm has not run yet is expired here, not revived. Activity is kept in memory at once, and
   * written at most once per tenth of the TTL or per minute, whichever is shorter: an object evicted
   * in between expires early by at most that.
   */
  async touch(init: SessionInit): Promise<boolean> {
    const s = await this.ensure(init);
    if (!s) return false;
    const now = Date.now();
    if (now >= s.lastSeenAt + s.ttlMs) {
      await this.expire(s);
      return false;
    }
    s.lastSeenAt = now;
    if (now - (this.seenWrittenAt ?? 0) > Math.min(60_000, s.ttlMs / 10)) {
      this.seenWrittenAt = now;
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
   * Whether the session is alive, without recording activity: its stream's Worker asks when the
   * session could first have expired, and then when its idle TTL would run out (sessions.ts
   * sessionLiveness).
   * Never makes the object: an id nobody used is alive until its `unusedUntil`.
   */
  async alive(init: SessionInit): Promise<false | { until: number }> {
    const s = await this.load();
    const now = Date.now();
    if (s) return s.lastSeenAt + s.ttlMs > now && { until: s.lastSeenAt + s.ttlMs };
    return this.endedUntil === undefined && init.unusedUntil > now && { until: init.unusedUntil };
  }

  /**
   * Ends the session and its streams; true when there was one to end. A session ended before its
   * id's TTL ran out leaves a tombstone until then (its id would otherwise still make it anew).
   */
  async end(init: SessionInit): Promise<boolean> {
    const s = await this.ensure(init);
    if (!s) {
      // Ended already: its shard is told again (a first telling may have failed), and it is a 404.
      if (this.endedUntil !== undefined && Date.now() < this.endedUntil) await this.endStream(init.id, this.endedUntil);
      return false;
    }
    await this.forget(s);
    await this.endStream(s.id, s.unusedUntil);
    return true;
  }

  /**
   * Drops the session's state, keeping a tombstone until its id's TTL runs out (the id would
   * otherwise make it anew). Done whole before any call out of this object: a call lets other
   * calls in (another isolate's touch), and they must find the session ended, not make it again.
   */
  private async forget(s: SessionState): Promise<void> {
    const until = s.unusedUntil;
    const keep = Date.now() < until;
    this.state = null;
    this.endedUntil = keep ? until : undefined;
    await this.ctx.storage.deleteAll();
    if (keep) {
      await this.ctx.storage.put('ended', until);
      await this.ctx.storage.setAlarm(until);
    } else await this.ctx.storage.deleteAlarm();
  }

  /** Its stream, if it has one, is at its shard (session/stream.ts): ended there, and refused there until `until`. */
  private endStream(id: string, until: number): Promise<void> {
    return shardStub(this.env, shardIndex(id, shardCount(this.env))).endSession(id, until);
  }

  private async expire(s: SessionState): Promise<void> {
    await this.forget(s);
    log.info('session expired', { idleMs: Date.now() - s.lastSeenAt });
    await this.endStream(s.id, s.unusedUntil);
  }

  override async alarm(): Promise<void> {
    const s = await this.load();
    if (!s) {
      // A tombstone whose id has expired on its own: nothing needs to be kept.
      if (this.endedUntil !== undefined && Date.now() >= this.endedUntil) await this.ctx.storage.deleteAll();
      return;
    }
    const expiresAt = s.lastSeenAt + s.ttlMs;
    if (Date.now() >= expiresAt) await this.expire(s);
    else await this.ctx.storage.setAlarm(expiresAt);
  }
}
