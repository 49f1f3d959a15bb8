/**
 * Verified credentials, remembered per isolate under a SHA-256 digest of the
 * token (never keyed by the token; an introspected token's principal holds it
 * to ask its issuer again, oauth.ts), until they expire: a warm authenticated request
 * costs one digest and one map lookup. One memo per AuthConfig, so a change
 * of issuers or audience never honours what the old config vouched for.
 */
import { encodeBase64Url } from '../lib/base64url.js';
import { BoundedMap } from '../lib/memo.js';
import type { Principal } from '../lib/scope.js';
import type { AuthConfig } from './config.js';

const enc = new TextEncoder();

/** SHA-256 of a token: what it is known by in memos, and how it is compared with the admin token. */
export async function digestBytes(token: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', enc.encode(token)));
}

/** The digest a token is known by in memos. */
export async function tokenDigest(token: string): Promise<string> {
  return encodeBase64Url(await digestBytes(token));
}

interface Entry {
  /** Undefined: known bad (introspection said inactive). */
  readonly principal: Principal | undefined;
  readonly until: number;
}

const MAX_ENTRIES = 10_000;
const memos = new WeakMap<AuthConfig, BoundedMap<string, Entry>>();

function memoOf(cfg: AuthConfig): BoundedMap<string, Entry> {
  let m = memos.get(cfg);
  if (!m) memos.set(cfg, (m = new BoundedMap(MAX_ENTRIES)));
  return m;
}

/** A remembered answer: a principal, `null` for a token known to be bad, undefined when unknown or expired. */
export function recall(cfg: AuthConfig, digest: string): Principal | null | undefined {
  const m = memoOf(cfg);
  const e = m.get(digest);
  if (e === undefined) return undefined;
  if (e.until <= Date.now()) {
    m.delete(digest);
    return undefined;
  }
  return e.principal ?? null;
}

export function remember(cfg: AuthConfig, digest: string, principal: Principal | undefined, until: number): void {
  if (until > Date.now()) memoOf(cfg).set(digest, { principal, until });
}
