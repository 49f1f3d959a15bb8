/**
 * SessionObject: one Durable Object per legacy-era MCP session.
 *
 * Owns the session's durable state (negotiated revision, client info and
 * capabilities, log level, timestamps) and its idle expiry by alarm. Workers
 * ask it only at initialize, DELETE, and when their liveness memo of the
 * session runs out (SESSION_RECHECK_MS), so a busy session costs a handful
 * of Durable Object requests, not one per message. `lastSeenAt` is written
 * at most every tenth of the TTL: expiry is exact to within that slack, and
 * a chatty client does not turn into a storage write per request.
 */
import { DurableObject } from 'cloudflare:workers';
import type { ClientCapabilities, Implementation, LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { LegacyVersion } from '../lib/versions.js';

export interface SessionState {
  version: LegacyVersion;
  clientInfo?: Implementation;
  capabilities?: ClientCapabilities;
  createdAt: number;
  lastSeenAt: number;
  ttlMs: number;
  logLevel?: LoggingLevel;
}

export type SessionInit = Pick<SessionState, 'version' | 'clientInfo' | 'capabilities' | 'ttlMs'>;

export class SessionObject extends DurableObject<Env> {
  private state: SessionState | null | undefined;

  private async load(): Promise<SessionState | null> {
    if (this.state === undefined) this.state = (await this.ctx.storage.get<SessionState>('state')) ?? null;
    return this.state;
  }

  async open(init: SessionInit): Promise<void> {
    const now = Date.now();
    this.state = { ...init, createdAt: now, lastSeenAt: now };
    await this.ctx.storage.put('state', this.state);
    await this.ctx.storage.setAlarm(now + init.ttlMs);
  }

  /** Marks activity; false when the session has ended or never existed. */
  async touch(): Promise<boolean> {
    const s = await this.load();
    if (!s) return false;
    const now = Date.now();
    if (now - s.lastSeenAt > Math.min(60_000, s.ttlMs / 10)) {
      s.lastSeenAt = now;
      await this.ctx.storage.put('state', s);
    }
    return true;
  }

  async setLogLevel(level: LoggingLevel): Promise<boolean> {
    const s = await this.load();
    if (!s) return false;
    s.logLevel = level;
    await this.ctx.storage.put('state', s);
    return true;
  }

  async describe(): Promise<SessionState | null> {
    return this.load();
  }

  /** Ends the session; true when there was one to end. */
  async end(): Promise<boolean> {
    const existed = (await this.load()) !== null;
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.state = null;
    return existed;
  }

  override async alarm(): Promise<void> {
    const s = await this.load();
    if (!s) return;
    const expiresAt = s.lastSeenAt + s.ttlMs;
    if (Date.now() >= expiresAt) {
      await this.end();
      console.log(JSON.stringify({ msg: 'session expired', idleMs: Date.now() - s.lastSeenAt }));
    } else {
      await this.ctx.storage.setAlarm(expiresAt);
    }
  }
}
