/**
 * One HTTP request to an upstream (http.ts `send`): its configured headers and its own bearer
 * token, one fresh token and one retry when the upstream refuses it (401), redirects refused
 * (fetch-guard.ts), and a fetch that throws turned into an UpstreamError. It knows nothing of eras
 * or JSON-RPC envelopes, which is why it stands apart from the rest of the HTTP side.
 */
import { guardedFetch } from './fetch-guard.js';
import type { BearerSource } from './oauth.js';
import type { SentSecrets } from './redact.js';
import { UpstreamError } from './errors.js';

/** What a request needs of its upstream's HTTP side (UpstreamHttp has all of it). */
export interface Sender {
  readonly fetch: typeof fetch;
  readonly sent: SentSecrets;
  readonly opts: {
    readonly headers: Record<string, string>;
    readonly timeoutMs: number;
    readonly auth?: BearerSource;
  };
}

/** A request as `send` takes it: method, URL, JSON body (when given), extra headers, the caller's signal. */
export type SendArgs = [method: string, url: URL, body?: unknown, extra?: Record<string, string>, signal?: AbortSignal];

/** One HTTP request to the upstream (JSON body when given), with its token; a refused token gets one retry. */
export async function sendTo(http: Sender, ...[method, url, body, extra = {}, signal]: SendArgs): Promise<Response> {
  const s = signal ?? AbortSignal.timeout(http.opts.timeoutMs);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const auth = http.opts.auth;
  let token = http.sent.token(auth && (await auth.token(s)));
  for (let attempt = 0; ; attempt++) {
    const res = await once(http, method, url, payload, extra, s, token);
    // The upstream refused its token (revoked, expired early, keys rotated): one fresh token, one retry.
    if (res.status !== 401 || !auth || token === undefined || attempt > 0) return res;
    await res.body?.cancel().catch(() => undefined);
    auth.rejected(token);
    token = http.sent.token(await auth.token(s));
  }
}

async function once(
  http: Sender,
  method: string,
  url: URL,
  payload: string | undefined,
  extra: Record<string, string>,
  signal: AbortSignal,
  token: string | undefined,
): Promise<Response> {
  try {
    return await guardedFetch(http.fetch, url, {
      method,
      headers: {
        ...http.opts.headers,
        ...(token !== undefined && { authorization: `Bearer ${token}` }),
        accept: 'application/json, text/event-stream',
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        ...extra,
      },
      body: payload,
      signal,
    });
  } catch (e) {
    if (e instanceof UpstreamError) throw e;
    const timedOut = (e as Error)?.name === 'TimeoutError' || (e as Error)?.name === 'AbortError';
    throw new UpstreamError(
      timedOut ? 'timeout' : 'http',
      timedOut
        ? `upstream did not answer ${method} within ${http.opts.timeoutMs} ms`
        : `upstream unreachable: ${String(e)}`,
    );
  }
}
