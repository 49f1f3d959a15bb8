/**
 * Where each issuer's signing keys come from: an inline JWK set, a jwksUri,
 * or the issuer's metadata (RFC 8414, then OpenID Connect discovery). Key
 * sets are jose's remote JWK sets, kept per URL for the isolate's life: they
 * cache the keys and refetch on an unknown `kid`, at most once per cooldown.
 * jose counts that cooldown from a successful fetch only, so a failed fetch
 * (and a failed discovery) is remembered here for the same cooldown: while an
 * issuer is down, tokens naming it do not each fetch from it again. Once the
 * held keys are older than MAX_AGE_MS jose refetches before each use and
 * fails when that fetch does; the keys it holds are then used all the same,
 * and only a token none of them matches is an outage (heldKeys). jose
 * reads a JWKS reply without a cap, so its fetch hands it a copy read with
 * the byte cap (reply.ts); metadata is read the same way, and a jwks_uri
 * it names passes the same URL rules as a configured one (config-checks.ts).
 */
import { createLocalJWKSet, createRemoteJWKSet, customFetch, errors, type JWTVerifyGetKey } from 'jose';
import { log } from '../lib/log.js';
import { AuthConfigError, urlProblem } from './config-checks.js';
import type { AuthConfig } from './config.js';
import type { IssuerConfig } from './issuers.js';
import { replyJson, replyText } from './reply.js';
import { keyServerFailed } from './verify.js';

/** Keys are refetched for an unknown kid at most this often, and at least this often otherwise. */
export const COOLDOWN_MS = 10_000;
const MAX_AGE_MS = 10 * 60_000;
const FETCH_TIMEOUT_MS = 5_000;

const remote = new Map<string, JWTVerifyGetKey>();
const local = new WeakMap<object, JWTVerifyGetKey>();
const discovered = new Map<string, { readonly p: Promise<string>; failedAt?: number }>();

/**
 * The fetch a key set uses: one that failed (an error, an answer other than 200, or one over the
 * byte cap) is answered again, without asking, until COOLDOWN_MS after it. Only fetches are
 * cooled, not the key set: a token whose key jose already holds is verified as ever meanwhile.
 */
function coolingFetch(): typeof fetch {
  let failed: { at: number; status?: number; error?: unknown } | undefined;
  return async (input, init) => {
    if (failed && Date.now() - failed.at < COOLDOWN_MS) {
      if (failed.status === undefined) throw failed.error;
      return new Response(null, { status: failed.status });
    }
    try {
      const res = await fetch(input, init);
      if (res.status !== 200) {
        failed = { at: Date.now(), status: res.status };
        return res;
      }
      const capped = new Response(await replyText(res, String(input)), { status: 200 });
      failed = undefined;
      return capped;
    } catch (error) {
      failed = { at: Date.now(), error };
      throw error;
    }
  };
}

/**
 * A remote key set that falls back on the keys it last fetched when a refetch fails (the set is
 * past its max age, or a kid is unknown): a token one of them matches is verified as ever; one
 * none matches gets the fetch's error, an outage (503), not an unknown key (401).
 */
function heldKeys(keys: ReturnType<typeof createRemoteJWKSet>): JWTVerifyGetKey {
  let held: { readonly text: string; readonly set: JWTVerifyGetKey } | undefined;
  return async (header, token) => {
    try {
      return await keys(header, token);
    } catch (e) {
      const last = keyServerFailed(e) ? keys.jwks() : undefined;
      if (!last) throw e;
      const text = JSON.stringify(last);
      if (held?.text !== text) held = { text, set: createLocalJWKSet(last) };
      try {
        return await held.set(header, token);
      } catch (miss) {
        throw miss instanceof errors.JWKSNoMatchingKey ? e : miss;
      }
    }
  };
}

/** The key set at a JWKS URL (Access certs, an issuer's jwks_uri), shared by every request of the isolate. */
export function remoteKeys(url: string): JWTVerifyGetKey {
  let k = remote.get(url);
  if (!k) {
    k = heldKeys(
      createRemoteJWKSet(new URL(url), {
        cooldownDuration: COOLDOWN_MS,
        cacheMaxAge: MAX_AGE_MS,
        timeoutDuration: FETCH_TIMEOUT_MS,
        [customFetch]: coolingFetch(),
      }),
    );
    remote.set(url, k);
  }
  return k;
}

/** The metadata URLs to try for an issuer: RFC 8414 §3.1 (well-known before the path), then OIDC (after it). */
function metadataUrls(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname === '/' ? '' : u.pathname.replace(/\/+$/, '');
  return [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${u.origin}${path}/.well-known/openid-configuration`,
  ];
}

async function discover(cfg: AuthConfig, issuer: string): Promise<string> {
  for (const url of metadataUrls(issuer)) {
    const res = await fetch(url, {
      headers: { accept: 'application/json' },
      redirect: 'manual',
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
    if (!res.ok) {
      await res.body?.cancel();
      continue;
    }
    const meta = (await replyJson(res, url)) as { issuer?: unknown; jwks_uri?: unknown } | null;
    // RFC 8414 §3.3: the metadata must name the issuer it was asked for, or it is not that issuer's.
    if (!meta || typeof meta !== 'object' || meta.issuer !== issuer || typeof meta.jwks_uri !== 'string') continue;
    // Never fetched: refused like keys that cannot be reached (503), and said why in the log.
    const problem = urlProblem(meta.jwks_uri, cfg.allowHttpLoopback);
    if (problem) {
      log.warn("auth: the jwks_uri in an issuer's metadata is refused", { issuer, metadata: url, problem });
      throw new Error(`the jwks_uri of ${issuer} is refused: ${problem}`);
    }
    return meta.jwks_uri;
  }
  throw new Error(`no usable authorization server metadata for ${issuer}`);
}

/** The issuer's jwks_uri from its metadata, fetched once per isolate (a failure is retried after COOLDOWN_MS). */
function jwksUriOf(cfg: AuthConfig, issuer: string): Promise<string> {
  const known = discovered.get(issuer);
  if (known && (known.failedAt === undefined || Date.now() - known.failedAt < COOLDOWN_MS)) return known.p;
  const entry: { readonly p: Promise<string>; failedAt?: number } = { p: discover(cfg, issuer) };
  entry.p.catch(() => (entry.failedAt = Date.now()));
  discovered.set(issuer, entry);
  return entry.p;
}

/** The key set to verify this issuer's tokens with. */
export async function issuerKeys(cfg: AuthConfig, entry: IssuerConfig): Promise<JWTVerifyGetKey> {
  if (entry.jwks) {
    let k = local.get(entry);
    if (!k) {
      try {
        k = createLocalJWKSet(entry.jwks);
      } catch {
        throw new AuthConfigError('OAUTH_ISSUERS', `the inline jwks of ${entry.issuer} is not a JWK set`);
      }
      local.set(entry, k);
    }
    return k;
  }
  return remoteKeys(entry.jwksUri ?? (await jwksUriOf(cfg, entry.issuer)));
}
