/**
 * The API keys, in the CatalogWriter object's SQLite: minted here, stored
 * only as the SHA-256 of the secret, which is returned once and never again.
 * Revocation is a timestamp, so it is immediate here and the row stays for
 * the record; isolates learn of it within KEY_RECHECK_MS (auth/api-key.ts).
 */
import { randomToken } from '../lib/base64url.js';
import { sha256Hex } from '../lib/hash.js';
import { parseKeyInput } from './key-input.js';
import type { Issue } from './types.js';

/** Every key starts with this, so a bearer token can be routed to key checks by its first bytes. */
export const KEY_PREFIX = 'pg_';
/** A key's public id: 16 hex digits (8 random bytes). */
export const KEY_ID_PATTERN = /^[0-9a-f]{16}$/;
/** Most keys that are neither revoked nor expired. */
export const MAX_KEYS = 1_000;
/** Most revoked or expired keys a listing shows, the newest. */
export const MAX_INACTIVE_LISTED = 1_000;

/** A key as the admin API lists it: never the secret, never its hash. */
export interface KeyInfo {
  id: string;
  name: string;
  groups: string[];
  /** Absent: the read scope. */
  scopes?: string[];
  /** Stored: created as admin. /admin/keys answers whether it is one by any rule (auth/api-key.ts keyIsAdmin). */
  admin: boolean;
  createdAt: string;
  createdBy: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

/** What verification needs (times in epoch ms). */
export interface KeyRecord {
  id: string;
  name: string;
  groups: string[];
  scopes: string[] | undefined;
  admin: boolean;
  expiresAt: number | undefined;
  revokedAt: number | undefined;
}

export type CreateKeyResult =
  | { ok: true; key: string; info: KeyInfo }
  | { ok: false; reason: 'invalid'; issues: Issue[] }
  | { ok: false; reason: 'too_many'; message: string };

interface Row {
  id: string;
  name: string;
  groups: string;
  scopes: string | null;
  admin: number;
  created_at: number;
  created_by: string;
  expires_at: number | null;
  revoked_at: number | null;
  [k: string]: SqlStorageValue;
}

/** The lookup key of a presented secret: hex SHA-256 of its UTF-8 bytes. */
export function keyDigest(secret: string): Promise<string> {
  return sha256Hex(secret);
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function toInfo(r: Row): KeyInfo {
  const info: KeyInfo = {
    id: r.id,
    name: r.name,
    groups: JSON.parse(r.groups) as string[],
    admin: r.admin === 1,
    createdAt: new Date(r.created_at).toISOString(),
    createdBy: r.created_by,
    expiresAt: iso(r.expires_at),
    revokedAt: iso(r.revoked_at),
  };
  if (r.scopes !== null) info.scopes = JSON.parse(r.scopes) as string[];
  return info;
}

const COLUMNS = 'id, name, groups, scopes, admin, created_at, created_by, expires_at, revoked_at';
/** A key neither revoked nor expired at the time bound to its one `?`. */
const ACTIVE = 'revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)';

export class KeysTable {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS keys (
      id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, name TEXT NOT NULL, groups TEXT NOT NULL,
      scopes TEXT, admin INTEGER NOT NULL, created_at INTEGER NOT NULL, created_by TEXT NOT NULL,
      expires_at INTEGER, revoked_at INTEGER)`);
  }

  /** Mints a key; the secret is in the answer and nowhere else. Synchronous SQL: no other call interleaves. */
  async create(body: unknown, createdBy: string): Promise<CreateKeyResult> {
    const now = Date.now();
    const parsed = parseKeyInput(body, now);
    if (!parsed.ok) return { ok: false, reason: 'invalid', issues: parsed.issues };
    const { name, groups, scopes, admin, expiresAt } = parsed.input;
    const key = KEY_PREFIX + randomToken(32);
    const hash = await keyDigest(key);
    // Hex, not base64url: an id that began with '-' would read as an option on a command line.
    const id = [...crypto.getRandomValues(new Uint8Array(8))].map((b) => b.toString(16).padStart(2, '0')).join('');
    const live = this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM keys WHERE ${ACTIVE}`, now).one().n;
    if (live >= MAX_KEYS)
      return { ok: false, reason: 'too_many', message: `At most ${MAX_KEYS} active keys; revoke some first` };
    this.sql.exec(
      `INSERT INTO keys (hash, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
      hash,
      id,
      name,
      JSON.stringify(groups),
      scopes === undefined ? null : JSON.stringify(scopes),
      admin ? 1 : 0,
      now,
      createdBy,
      expiresAt ?? null,
    );
    return { ok: true, key, info: toInfo(this.row(id)!) };
  }

  /**
   * Every active key and the newest MAX_INACTIVE_LISTED revoked or expired ones, newest first, and
   * how many older inactive keys were left out. Inactive rows stay for the record, so minting and
   * revoking keys for years would otherwise make one answer of them all.
   */
  list(): { keys: KeyInfo[]; omitted: number } {
    const now = Date.now();
    const keys = this.sql
      .exec<Row>(
        `SELECT ${COLUMNS} FROM keys WHERE ${ACTIVE}
         UNION ALL SELECT * FROM (SELECT ${COLUMNS} FROM keys WHERE NOT (${ACTIVE})
           ORDER BY created_at DESC, id LIMIT ?)
         ORDER BY created_at DESC, id`,
        now,
        now,
        MAX_INACTIVE_LISTED,
      )
      .toArray()
      .map(toInfo);
    const inactive = this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM keys WHERE NOT (${ACTIVE})`, now).one().n;
    return { keys, omitted: Math.max(0, inactive - MAX_INACTIVE_LISTED) };
  }

  /** Revokes at once; revoking again keeps the first time. Undefined for an unknown id. */
  revoke(id: string): KeyInfo | undefined {
    this.sql.exec('UPDATE keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', Date.now(), id);
    const row = this.row(id);
    return row && toInfo(row);
  }

  /** The key whose secret has this digest, revoked or expired ones included (the caller decides). */
  byDigest(hash: string): KeyRecord | undefined {
    const r = this.sql.exec<Row>(`SELECT ${COLUMNS} FROM keys WHERE hash = ?`, hash).toArray()[0];
    if (!r) return undefined;
    return {
      id: r.id,
      name: r.name,
      groups: JSON.parse(r.groups) as string[],
      scopes: r.scopes === null ? undefined : (JSON.parse(r.scopes) as string[]),
      admin: r.admin === 1,
      expiresAt: r.expires_at ?? undefined,
      revokedAt: r.revoked_at ?? undefined,
    };
  }

  private row(id: string): Row | undefined {
    return this.sql.exec<Row>(`SELECT ${COLUMNS} FROM keys WHERE id = ?`, id).toArray()[0];
  }
}
