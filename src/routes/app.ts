/**
 * The Hono app: mounts the routes and owns the single error handler that
 * turns every HttpError (and anything unexpected) into a response.
 */
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { Hono, type Context } from 'hono';
import { AuthConfigError, AuthNotConfiguredError } from '../auth/config-checks.js';
import { AuthError } from '../auth/errors.js';
import { ConfigError, MissingSecretError } from '../lib/config-vars.js';
import { errorJson, ErrorCode, HttpError, isRetryable, unavailable } from '../rpc/errors.js';
import type { AppEnv } from '../env.js';
import { admin } from './admin.js';
import { browserGuard } from './guards.js';
import { ApiError } from './api-error.js';
import { listings } from './listing.js';
import { mcp } from './mcp.js';
import { metadata } from './metadata.js';
import { status } from './status.js';
import { web } from './web.js';
import { observe } from './observe.js';
import { methodOf, onMcp, scopeOf } from './scope.js';
import { RATE_PERIOD_S } from './limits.js';
import { TooManyStreamsError } from '../session/stream-limits.js';
import { log } from '../lib/log.js';
import { loggedPath } from '../observe/log-line.js';

export const app = new Hono<AppEnv>();

app.use('*', observe);

/** One 308 to the same URL without its trailing slashes: the query is kept and the host never changes. */
function withoutTrailingSlash(c: Context<AppEnv>, url: URL): Response {
  url.pathname = url.pathname.replace(/\/+$/, '') || '/';
  return c.redirect(url.href, 308);
}

// `/mcp/` is a common way to write the endpoint in a client's config. A 308
// sends it to the one URL with its method and body (fetch resends them), so
// sessions and OAuth's resource see `/mcp` alone. The browser guard comes
// first: a browser follows a cross-origin redirect only when it, too, carries
// CORS headers (and its preflight is answered, not redirected), and a
// disallowed origin is refused here as at `/mcp`.
app.all('/mcp/', browserGuard, (c) => withoutTrailingSlash(c, new URL(scopeOf(c).url)));
app.route('/mcp', mcp);
app.route('/admin', admin);
app.route('/status', status);
app.route('/prompts', listings);
app.route('/.well-known', metadata);

// The web catalog at / (HTML for browsers, the JSON stub otherwise), /p/<name> and /assets/.
app.route('/', web);

/**
 * The headers of every error answer. None is kept by a cache in front of the gateway: an error tells
 * of one moment and one caller (a 404 before the publish that adds the prompt, one view's 404, a
 * 401). GET /prompts is CORS-open (listing.ts): a browser must be able to read why it failed, too.
 */
const errorHeadersOf = (c: Context<AppEnv>): Record<string, string> =>
  c.req.path.startsWith('/prompts')
    ? { 'cache-control': 'no-store', 'access-control-allow-origin': '*' }
    : { 'cache-control': 'no-store' };

/**
 * A page or listing read with a trailing slash (`/prompts/`, `/p/<name>/`) is sent to the path
 * without it, once. Here rather than in a middleware: only requests no route matched pay for it.
 * Anything else gets the same `{error: {code, message}}` shape as every other plain-HTTP error
 * (api-error.ts).
 */
app.notFound((c) => {
  const url = new URL(scopeOf(c).url);
  const method = methodOf(c);
  if ((method === 'GET' || method === 'HEAD') && url.pathname.length > 1 && url.pathname.endsWith('/'))
    return withoutTrailingSlash(c, url);
  return c.json(
    { error: { code: 'not_found', message: `No route for ${method} ${url.pathname.slice(0, 200)}` } },
    404,
    errorHeadersOf(c),
  );
});

/**
 * A deployment that cannot run safely (lib/config.ts, auth/config.ts), in the
 * error shape of the route that found it. A missing secret or AUTH says so;
 * a bad access-control var is named in the log only.
 */
function misconfigured(err: MissingSecretError | AuthConfigError, mcpPath: boolean): HttpError | ApiError {
  let message = err.message;
  if (err instanceof MissingSecretError)
    log.error('SIGNING_SECRET is not set; run `wrangler secret put SIGNING_SECRET`');
  else if (!(err instanceof AuthNotConfiguredError)) {
    log.error('access control is misconfigured', { variable: err.variable, error: err.message });
    message = 'Server misconfigured; see logs';
  }
  return mcpPath ? new HttpError(500, ErrorCode.InternalError, message) : new ApiError(500, 'misconfigured', message);
}

/** The principal's id for log lines, once access control has set one. */
const principalId = (c: Context<AppEnv>) => c.get('scope')?.principal.id;

/** A JSON-RPC error body as the response, on /mcp. */
const rpcResponse = (id: RequestId | undefined, http: HttpError, headers: Record<string, string>): Response =>
  new Response(errorJson(id, http), {
    status: http.status,
    headers: { 'content-type': 'application/json', ...headers },
  });

/** A failure the runtime calls safe to repeat (a Durable Object reset or overloaded): a warning, then a 503. */
const logRetryable = (c: Context<AppEnv>, cause: unknown) =>
  log.warn('request failed, retryable', {
    path: loggedPath(c.req.path),
    error: String(cause),
    principal: principalId(c),
  });

/** A refusal of access control (auth/errors.ts): a JSON-RPC error on /mcp, the `{error}` body elsewhere. */
function refusal(err: AuthError, c: Context<AppEnv>): Response {
  log.warn('request refused', {
    status: err.status,
    error: err.oauthError ?? null,
    reason: err.message,
    principal: principalId(c),
  });
  const headers: Record<string, string> = errorHeadersOf(c);
  if (err.challenge) headers['www-authenticate'] = err.challenge;
  if (err.status === 503) headers['retry-after'] = '5';
  if (headers['access-control-allow-origin']) headers['access-control-expose-headers'] = 'WWW-Authenticate';
  if (!onMcp(c)) return c.json({ error: { code: err.code, message: err.message } }, err.status, headers);
  const http = new HttpError(err.status, ErrorCode.Transport, err.message, {
    headers,
    data: err.oauthError ? { error: err.oauthError } : undefined,
  });
  // Its code is not kept as `answeredCode`: error.type stays the status (`401`, `403`), which tells a
  // refusal apart where the body's -32000 would read as any transport error (observe/finish.ts).
  return rpcResponse(undefined, http, headers);
}

/**
 * The `{error}` code of an HttpError that reached a route other than /mcp. The routes there raise
 * their refusals as ApiError; an HttpError is a failure of a shared layer below them.
 */
const apiCodeOf = (status: number): string =>
  status === 503 ? 'unavailable' : status >= 500 ? 'internal' : 'bad_request';

app.onError((err, c) => {
  if (err instanceof AuthError) return refusal(err, c);
  if (err instanceof MissingSecretError || err instanceof AuthConfigError) err = misconfigured(err, onMcp(c));
  else if (!(err instanceof HttpError) && !(err instanceof ApiError) && isRetryable(err)) {
    logRetryable(c, err);
    err = onMcp(c)
      ? unavailable()
      : new ApiError(503, 'unavailable', 'Temporarily unavailable; retry the request (it is safe to repeat)');
  } else if (err instanceof TooManyStreamsError)
    err = new HttpError(429, ErrorCode.Transport, `Too Many Requests: ${err.message}; close one and retry`, {
      headers: { 'retry-after': String(RATE_PERIOD_S) },
    });
  if (err instanceof ApiError) {
    const error =
      err.issues === undefined
        ? { code: err.code, message: err.message }
        : { code: err.code, message: err.message, issues: err.issues };
    return c.json({ error }, err.status, { ...errorHeadersOf(c), ...(err.status === 503 && { 'retry-after': '1' }) });
  }
  let http: HttpError;
  let apiCode: string | undefined;
  if (err instanceof HttpError) {
    http = err;
    // A 4xx is the request's own log line (routes/observe.ts: status, error.type); a 5xx also says why.
    // A call's object reset under it (rpc/dispatch.ts) is a 503 whose cause is that retryable failure.
    if (err.status === 503 && isRetryable(err.cause)) logRetryable(c, err.cause);
    else if (err.status >= 500)
      log.error('request failed', {
        status: err.status,
        code: err.code,
        error: err.message,
        principal: principalId(c),
      });
  } else {
    const misconfigured = err instanceof ConfigError;
    log.error(misconfigured ? 'configuration error' : 'unhandled error', {
      path: loggedPath(c.req.path),
      principal: principalId(c),
      error: String(err),
      stack: err.stack,
    });
    http = new HttpError(
      500,
      ErrorCode.InternalError,
      misconfigured ? 'Server misconfigured; see logs' : 'Internal error',
    );
    apiCode = misconfigured ? 'misconfigured' : 'internal';
  }
  // Every route but /mcp answers the `{error}` body, whatever failed (a shared guard, a bug).
  if (!onMcp(c))
    return new Response(JSON.stringify({ error: { code: apiCode ?? apiCodeOf(http.status), message: http.message } }), {
      status: http.status,
      headers: { 'content-type': 'application/json', ...errorHeadersOf(c), ...http.headers },
    });
  const record = c.get('scope')?.record;
  // Its code is what `error.type` names (observe/finish.ts), whatever was thrown underneath.
  if (record) record.answeredCode = http.code;
  // An error raised after the body's one request was read (a failed Durable Object call, a bug) still echoes its id.
  return rpcResponse(http.id ?? record?.soleId, http, { ...errorHeadersOf(c), ...http.headers });
});
