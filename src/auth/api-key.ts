/**
 * Who an API key (`pg_…`) speaks for. Only the key's SHA-256 is ever looked
 * up, in the catalog writer object; each answer, found or not, is trusted by
 * this isolate for KEY_RECHECK_MS, so a warm request costs one digest and a
 * map lookup, and a revocation reaches every isolate within that window.
 */
import { catalogWriter } from '../catalog/stubs.js';
import { KEY_PREFIX, keyDigest, type KeyRecord } from '../catalog/keys-table.js';
import { authConfigOf } from './config.js';
import { log } from '../lib/log.js';
import { BoundedMap } from '../lib/memo.js';
import type { Principal, RequestScope } from '../lib/scope.js';

/** `pg_` and 32 random bytes in base64url: anything else is refused without a lookup. */
const KEY_SHAPE = /^pg_[A-Za-z0-9_-]{43}$/;

interface Lookup {
  /** Undefined: no key has this digest. */
  readonly record: KeyRecord | undefined;
  /** When the writer object gave this answer (ms). */
  readonly at: number;
  /** Built once per answer: a warm request allocates nothing. */
  principal?: Principal;
}

/** Known and unknown digests apart, so a flood of made-up keys cannot push real ones out. */
const known = new BoundedMap<string, Lookup>(10_000);
const unknown = new BoundedMap<string, Lookup>(10_000);
const inFlight = new Map<string, Promise<Lookup>>();

/** The writer's answer for a digest, as this isolate last heard it, asking again once it is older than the window. */
function lookup(env: Env, digest: string): Lookup | Promise<Lookup> {
  const hit = known.get(digest) ?? unknown.get(digest);
  if (hit && Date.now() - hit.at < authConfigOf(env).keyRecheckMs) return hit;
  let p = inFlight.get(digest);
  if (!p) {
    p = catalogWriter(env)
      .keyByDigest(digest)
      .then((record) => {
        const answer: Lookup = { record, at: Date.now() };
        // A revoked key stays known (its id lets forgetKey find it); an unknown one never was.
        (record ? known : unknown).set(digest, answer);
        (record ? unknown : known).delete(digest);
        return answer;
      })
      .finally(() => inFlight.delete(digest));
    inFlight.set(digest, p);
  }
  return p;
}

const usable = (r: KeyRecord | undefined, now: number): r is KeyRecord =>
  r !== undefined && r.revokedAt === undefined && (r.expiresAt === undefined || r.expiresAt > now);

/**
 * Whether a key is an admin, by the same rule as every other method: its flag, the admin scope, or
 * a member of ADMIN_GROUPS. Listings say this, not the stored flag alone, so what they show is what
 * the key may do (a change of ADMIN_GROUPS or OAUTH_SCOPE_ADMIN shows at once).
 */
export function keyIsAdmin(
  env: Env,
  r: { readonly admin: boolean; readonly scopes?: readonly string[]; readonly groups: readonly string[] },
): boolean {
  const cfg = authConfigOf(env);
  return r.admin || (r.scopes?.includes(cfg.scopeAdmin) ?? false) || r.groups.some((g) => cfg.adminGroups.has(g));
}

function principalOf(env: Env, digest: string, r: KeyRecord): Principal {
  const cfg = authConfigOf(env);
  const scopes = new Set(r.scopes ?? [cfg.scopeRead]);
  const admin = keyIsAdmin(env, r);
  if (admin) scopes.add(cfg.scopeRead).add(cfg.scopeAdmin);
  return {
    id: `key:${r.id}`,
    method: 'apikey',
    name: r.name,
    groups: r.groups,
    scopes,
    admin,
    expiresAt: r.expiresAt,
    async recheck() {
      try {
        return usable((await lookup(env, digest)).record, Date.now());
      } catch (e) {
        // The writer is unreachable: keep the last answer rather than cut every stream on a hiccup.
        log.warn('API key recheck failed; last answer kept', { key: r.id, error: String(e) });
        return usable((known.get(digest) ?? unknown.get(digest))?.record, Date.now());
      }
    },
  };
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/**
 * The key's principal; undefined for a key that is unknown, revoked or expired. `sha256` is the
 * key's digest when the caller already took it (auth/authenticate.ts does, for the ADMIN_TOKEN check).
 */
export async function apiKeyPrincipal(
  scope: RequestScope,
  presented: string,
  sha256?: Uint8Array,
): Promise<Principal | undefined> {
  if (!presented.startsWith(KEY_PREFIX) || !KEY_SHAPE.test(presented)) return undefined;
  const digest = sha256 ? hex(sha256) : await keyDigest(presented);
  const answer = await lookup(scope.env, digest);
  if (!usable(answer.record, Date.now())) return undefined;
  return (answer.principal ??= principalOf(scope.env, digest, answer.record));
}

/** Drops this isolate's memo of one key (after revoking it here, so this isolate stops at once). */
export function forgetKey(id: string): void {
  for (const [digest, l] of known) if (l.record?.id === id) known.delete(digest);
}
