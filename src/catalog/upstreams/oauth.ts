/**
 * Upstream credentials by the OAuth 2.0 client-credentials grant: the
 * bearer token an upstream with an `oauth` entry gets, cached per upstream
 * for the isolate (the Worker's cold path and the UpstreamObject share it)
 * and fetched once however many requests wait for it. It is refreshed a
 * minute before it expires (at half its life when it lives two minutes or
 * less) in the background, callers going on with the cached token meanwhile
 * (but for its last 5 s), and dropped when the upstream answers 401 (http.ts
 * retries once).
 * A refresh that fails while the cached token has not expired keeps that
 * token, and the endpoint is asked again only after RETRY_AFTER_MS.
 *
 * Never in an error, a log or /status: the secret and the tokens. A failing
 * token endpoint is reported by its status and OAuth error code only
 * (fault `credentials`); the endpoint's own description could echo anything.
 */
import { readCapped } from './body.js';
import type { UpstreamConfig, UpstreamOAuth } from './schema.js';
import { UpstreamError } from './errors.js';
import { guardedFetch } from './fetch-guard.js';

/** What the upstream client asks of a credential source. */
export interface BearerSource {
  /** A token to send now: cached, or fetched within the upstream's timeout (and given up on when `signal` aborts). */
  token(signal?: AbortSignal): Promise<string>;
  /** The upstream refused `token` (401): the next `token()` fetches a new one. */
  rejected(token: string): void;
}

interface Entry {
  token?: string;
  refreshAt: number;
  /** When `token` stops being valid: until then a failed refresh leaves it in use. */
  expiresAt: number;
  /** Until when a caller is handed `token` while its refresh runs, rather than waiting for the new one. */
  handOutUntil: number;
  /** The secret the token was obtained with: a rotated secret means a new token. */
  secret: string;
  inflight?: Promise<string>;
  /** When `inflight` was begun. */
  inflightSince: number;
}

const REFRESH_BEFORE_MS = 60_000;
/** Past its own deadline by this much, a token fetch that has not settled is taken for one that never will. */
const STALE_AFTER_MS = 1_000;
/** A token's last moments (at most a quarter of its life), when callers wait for its refresh instead. */
const LAST_MOMENTS_MS = 5_000;
/** After a failed early refresh, the cached token is used this long before the endpoint is asked again. */
export const RETRY_AFTER_MS = 10_000;
/** A token response without expires_in is kept this long (or until the upstream refuses it). */
const UNSTATED_LIFETIME_MS = 10 * 60_000;
const cache = new Map<string, Entry>();

/** When to fetch the next token, for one obtained at `now` that lives `lifetimeMs`. */
export function refreshAt(now: number, lifetimeMs: number): number {
  return now + (lifetimeMs > 2 * REFRESH_BEFORE_MS ? lifetimeMs - REFRESH_BEFORE_MS : lifetimeMs / 2);
}

/** Identifies an upstream's grant without its secret (also the UpstreamObject's client key). */
export function grantKey(id: string, o: UpstreamOAuth): string {
  return JSON.stringify([id, o.tokenUrl.href, o.clientId, o.authMethod, o.scope ?? '', o.resource ?? '']);
}

/** The credential source of one upstream's grant, over the isolate's cache. */
export function bearerSource(
  id: string,
  o: UpstreamOAuth,
  timeoutMs: number,
  fetchFn: typeof fetch = (input, init) => fetch(input, init),
  now: () => number = Date.now,
): BearerSource {
  const key = grantKey(id, o);
  const entry = (): Entry => {
    let e = cache.get(key);
    if (!e || e.secret !== o.clientSecret)
      cache.set(key, (e = { refreshAt: 0, expiresAt: 0, handOutUntil: 0, inflightSince: 0, secret: o.clientSecret }));
    return e;
  };
  /**
   * What a caller gets while a refresh runs. An early refresh: the cached token is still good, so no
   * caller waits on the endpoint (a slow one would spend the caller's deadline, meant for the
   * upstream). Not in the token's last moments: an upstream whose clock counts whole seconds may
   * refuse it already.
   */
  const share = (e: Entry, signal?: AbortSignal): Promise<string> => {
    if (e.token && now() < e.handOutUntil) return Promise.resolve(e.token);
    // A caller with no deadline of its own (a change stream's) stops waiting when the fetch is taken for dead.
    return abandonable(e.inflight!, signal ?? AbortSignal.timeout(timeoutMs + STALE_AFTER_MS));
  };
  return {
    token(signal) {
      const e = entry();
      if (e.token && now() < e.refreshAt) return Promise.resolve(e.token);
      // Its own deadline, never a caller's: a caller whose signal has none (the change stream's) must
      // not leave a hung fetch that every later caller of this grant waits on. A fetch begun by a
      // request that has ended may never settle (the runtime cancels that request's I/O, its deadline's
      // timer too): one older than its deadline is given up on, and a new one begun.
      if (e.inflight && now() - e.inflightSince <= timeoutMs + STALE_AFTER_MS) return share(e, signal);
      e.inflightSince = now();
      const fetched: Promise<string> = obtain(o, AbortSignal.timeout(timeoutMs), fetchFn, now)
        .then(
          ({ token, lifetimeMs }) => {
            e.token = token;
            e.refreshAt = refreshAt(now(), lifetimeMs);
            e.expiresAt = now() + lifetimeMs;
            e.handOutUntil = e.expiresAt - Math.min(LAST_MOMENTS_MS, lifetimeMs / 4);
            return token;
          },
          (err: unknown) => {
            // An early refresh that failed: the token it would replace is still good, and the endpoint
            // gets a rest rather than a request from every caller.
            if (!e.token || now() >= e.expiresAt) throw err;
            e.refreshAt = Math.min(now() + RETRY_AFTER_MS, e.expiresAt);
            return e.token;
          },
        )
        .finally(() => {
          if (e.inflight === fetched) e.inflight = undefined;
        });
      fetched.catch(() => undefined); // a background refresh may have no caller waiting
      e.inflight = fetched;
      return share(e, signal);
    },
    rejected(token) {
      const e = cache.get(key);
      if (e?.token === token) e.token = undefined;
    },
  };
}

/** The shared fetch, as one caller sees it: it stops waiting when its own signal aborts. */
function abandonable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(fail('token endpoint did not answer in time'));
  return new Promise<T>((resolve, reject) => {
    const gone = () => reject(fail('token endpoint did not answer in time'));
    signal.addEventListener('abort', gone, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', gone));
  });
}

/** The credential source an upstream's client uses, if its configuration has an `oauth` entry. */
export function upstreamAuth(u: UpstreamConfig): BearerSource | undefined {
  return u.oauth && bearerSource(u.id, u.oauth, u.timeoutMs);
}

/** Forgets every cached token (tests; a rotated secret is noticed without it). */
export function forgetTokens(): void {
  cache.clear();
}

const fail = (message: string) => new UpstreamError('http', message, undefined, undefined, 'credentials');

async function obtain(
  o: UpstreamOAuth,
  signal: AbortSignal,
  fetchFn: typeof fetch,
  now: () => number,
): Promise<{ token: string; lifetimeMs: number }> {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (o.scope) form.set('scope', o.scope);
  if (o.resource) form.set('resource', o.resource);
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (o.authMethod === 'client_secret_post') {
    form.set('client_id', o.clientId);
    form.set('client_secret', o.clientSecret);
  } else {
    // RFC 6749 2.3.1: each part form-urlencoded before base64.
    const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
    headers.authorization = `Basic ${btoa(`${enc(o.clientId)}:${enc(o.clientSecret)}`)}`;
  }
  const started = now();
  let res: Response;
  try {
    res = await guardedFetch(fetchFn, o.tokenUrl, { method: 'POST', headers, body: form.toString(), signal });
  } catch (e) {
    if (e instanceof UpstreamError) throw fail(`token endpoint ${e.message.replace(/^upstream /, '')}`);
    const timedOut = (e as Error)?.name === 'TimeoutError' || (e as Error)?.name === 'AbortError';
    throw fail(timedOut ? 'token endpoint did not answer in time' : 'token endpoint unreachable');
  }
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(await readCapped(res, 64 * 1024));
    // JSON that is no object (null, a number, a list) holds no token, like an answer that is not JSON.
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: judged by the status alone.
  }
  if (!res.ok) {
    // Only a well-formed OAuth error code is repeated; anything else the endpoint said stays out.
    const code = typeof body.error === 'string' && /^[a-z_]{1,64}$/.test(body.error) ? ` (${body.error})` : '';
    throw fail(`token endpoint answered ${res.status}${code}`);
  }
  const token = body.access_token;
  if (typeof token !== 'string' || !token || !/^[\x21-\x7e]+$/.test(token))
    throw fail('token endpoint answered without a usable access_token');
  if (typeof body.token_type !== 'string' || body.token_type.toLowerCase() !== 'bearer')
    throw fail('token endpoint answered a token that is not a Bearer token');
  const expiresIn = Number(body.expires_in);
  const lifetimeMs = Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn * 1000 : UNSTATED_LIFETIME_MS;
  // Lifetime counted from the request, not the answer: a slow endpoint cannot make a token outlive its expiry.
  return { token, lifetimeMs: Math.max(0, lifetimeMs - (now() - started)) };
}
