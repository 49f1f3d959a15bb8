/**
 * SessionObject: one Durable Object per legacy-era MCP session.
 *
 * Made on first need, not at `initialize` (sessions.ts): the first call that
 * needs state brings what the signed id says (SessionInit). Owns the
 * session's durable state (negotiated revision, log level, timestamps), its
 * idle expiry by alarm, a tombstone for an ended session while anything could
 * still believe it alive. Its standalone stream is not here: it is a socket at the
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
import { shardCount, shardIndex, shardStub } from './fanout.js';
import { log } from '../lib/log.js';
import { configOf } from '../lib/config.js';
import type { SessionInit, SessionState } from './session-state.js';

/** How soon the alarm tells a session's shard again after telling it failed. */
const RETELL_MS = 5_000;

export class SessionObject extends DurableObject<Env> {
  /** undefined: not read yet; null: no state (never made, expired, or ended). */
  private state: SessionState | null | undefined;
  /** Ended (DELETE) while anything could still believe it alive: kept until then, so it is not made anew. */
  private endedUntil: number | undefined;
  /** The ended session's id while its shard has not been told (the alarm tells it again). */
  private untold: string | undefined;
  /** The `lastSeenAt` that storage holds (the in-memory one may be newer). */
  private seenWrittenAt: number | undefined;

  private async load(): Promise<SessionState | null> {
    if (this.state === undefined) {
      const got = await this.ctx.storage.get<SessionState | number | string>(['state', 'ended', 'untold']);
      this.state = (got.get('state') as SessionState | undefined) ?? null;
      this.endedUntil = got.get('ended') as number | undefined;
      this.untold = got.get('untold') as string | undefined;
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
    const s = await this.live(init);
    if (!s) return false;
    const now = s.lastSeenAt;
    if (now - (this.seenWrittenAt ?? 0) > Math.min(60_000, s.ttlMs / 10)) {
      this.seenWrittenAt = now;
      await this.ctx.storage.put('state', s);
    }
    return true;
  }

  /** A use of the session: false when it ended or sat idle past its TTL (and is expired now). */
  async setLogLevel(init: SessionInit, level: LoggingLevel): Promise<boolean> {
    const s = await this.live(init);
    if (!s) return false;
    s.logLevel = level;
    this.seenWrittenAt = s.lastSeenAt;
    await this.ctx.storage.put('state', s);
    return true;
  }

  /** The session's state with this use recorded, or null when it ended or sat idle past its TTL. */
  private async live(init: SessionInit): Promise<SessionState | null> {
    const s = await this.ensure(init);
    if (!s) return null;
    const now = Date.now();
    if (now >= s.lastSeenAt + s.ttlMs) {
      await this.expire(s);
      return null;
    }
    s.lastSeenAt = now;
    return s;
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
   * Ends the session and its streams; true when there was one to end. Its shard refuses the
   * session's streams for as long as anything could still believe it alive (forget); if telling
   * the shard fails, the call fails and the alarm tells it again.
   */
  async end(init: SessionInit): Promise<boolean> {
    const s = await this.ensure(init);
    if (!s) {
      // Ended already: its shard is told again (a first telling may have failed), and it is a 404.
      if (this.endedUntil !== undefined && Date.now() < this.endedUntil) await this.tellShard(init.id, this.endedUntil);
      return false;
    }
    // Idle past its TTL, its alarm not run yet: expired, as any other request finds it (a 404 for all).
    if (Date.now() >= s.lastSeenAt + s.ttlMs) {
      await this.expire(s);
      return false;
    }
    await this.tellShard(s.id, await this.forget(s));
    return true;
  }

  /**
   * Drops the session's state, keeping a tombstone while anything could still believe it alive:
   * its id's TTL (the id would otherwise make it anew), and the idle TTL from its last activity (a
   * stream's last liveness answer vouches for it until then: sessions.ts sessionLiveness). Done
   * whole before any call out of this object: a call lets other calls in (another isolate's
   * touch), and they must find the session ended, not make it again. Resolves that moment.
   */
  private async forget(s: SessionState): Promise<number> {
    const until = Math.max(s.unusedUntil, s.lastSeenAt + s.ttlMs);
    const keep = Date.now() < until;
    this.state = null;
    this.endedUntil = keep ? until : undefined;
    this.untold = undefined;
    await this.ctx.storage.deleteAll();
    if (keep) {
      await this.ctx.storage.put('ended', until);
      await this.ctx.storage.setAlarm(until);
    } else await this.ctx.storage.deleteAlarm();
    return until;
  }

  /**
   * Its stream, if it has one, is at its shard (session/stream.ts): ended there, and refused there
   * until `until`. A failure is remembered (with the tombstone) and retried by the alarm, then thrown.
   */
  private async tellShard(id: string, until: number): Promise<void> {
    try {
      await shardStub(this.env, shardIndex(id, shardCount(this.env))).endSession(id, until);
    } catch (e) {
      if (this.endedUntil !== undefined) {
        this.untold = id;
        await this.ctx.storage.put('untold', id);
        await this.ctx.storage.setAlarm(Date.now() + RETELL_MS);
      }
      throw e;
    }
    if (this.untold !== undefined) {
      this.untold = undefined;
      await this.ctx.storage.delete('untold');
      if (this.endedUntil !== undefined) await this.ctx.storage.setAlarm(this.endedUntil);
    }
  }

  /**
   * An expired session's stream ends at its own next liveness check too, should telling its shard
   * fail: that failure is logged, never the answer, so the request that found the session expired
   * gets its 404, not a 5xx.
   */
  private async expire(s: SessionState): Promise<void> {
    const until = await this.forget(s);
    log.info('session expired', { idleMs: Date.now() - s.lastSeenAt });
    await this.tellShard(s.id, until).catch((e: unknown) =>
      log.warn("expired session's shard not told; its stream ends at its liveness check", { error: String(e) }),
    );
  }

  override async alarm(): Promise<void> {
    const s = await this.load();
    if (!s) {
      if (this.endedUntil === undefined) return;
      // A tombstone past its time: nothing needs to be kept.
      if (Date.now() >= this.endedUntil) return void (await this.ctx.storage.deleteAll());
      // Its shard was not told yet: again now (a failure re-arms this alarm).
      if (this.untold !== undefined) await this.tellShard(this.untold, this.endedUntil).catch(() => undefined);
      return;
    }
    const expiresAt = s.lastSeenAt + s.ttlMs;
    if (Date.now() >= expiresAt) await this.expire(s);
    else await this.ctx.storage.setAlarm(expiresAt);
  }
}
