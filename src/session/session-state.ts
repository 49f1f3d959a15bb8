/**
 * What a legacy-era session's Durable Object (session-object.ts) keeps, and what each call that
 * needs it brings: apart, so the Workers that call it (sessions.ts) depend on the shapes only.
 */
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { LegacyVersion } from '../lib/versions.js';

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
