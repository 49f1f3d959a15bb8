/**
 * The Hono app: mounts the routes and owns the single error handler that
 * turns every HttpError (and anything unexpected) into a response.
 */
import { Hono } from 'hono';
import { ConfigError, MissingSecretError } from '../lib/config.js';
import { errorJson, ErrorCode, HttpError } from '../rpc/errors.js';
import type { AppEnv } from '../env.js';
import { admin } from './admin.js';
import { ApiError } from './api-error.js';
import { listings } from './listing.js';
import { mcp } from './mcp.js';
import { status } from './status.js';
import { log } from '../lib/log.js';

export const app = new Hono<AppEnv>();

app.route('/mcp', mcp);
app.route('/admin', admin);
app.route('/status', status);
app.route('/prompts', listings);

app.get('/', (c) => c.json({ name: 'promptgate', mcp: new URL('/mcp', c.req.url).href }));

// The same `{error: {code, message}}` shape as every other plain-HTTP error (api-error.ts).
app.notFound((c) =>
  c.json(
    {
      error: {
        code: 'not_found',
        message: `No route for ${c.req.method} ${new URL(c.req.url).pathname.slice(0, 200)}`,
      },
    },
    404,
  ),
);

/**
 * A Durable Object that was reset, restarted or overloaded mid-call: the
 * runtime marks the error (`durableObjectReset`, `retryable`, `overloaded`).
 * Every write path is idempotent (the writer applies
 * identical content once), so the honest answer is 503 with Retry-After, not
 * a 500 that reads as a bug.
 */
function retryable(err: Error): boolean {
  const e = err as { retryable?: unknown; overloaded?: unknown; durableObjectReset?: unknown };
  return e.retryable === true || e.overloaded === true || e.durableObjectReset === true;
}

/** A missing SIGNING_SECRET (lib/config.ts), in the error shape of the route that needed it. */
function missingSecret(err: MissingSecretError, path: string): HttpError | ApiError {
  log.error('SIGNING_SECRET is not set; run `wrangler secret put SIGNING_SECRET`');
  return path.startsWith('/mcp')
    ? new HttpError(500, ErrorCode.InternalError, err.message)
    : new ApiError(500, 'misconfigured', err.message);
}

app.onError((err, c) => {
  if (err instanceof MissingSecretError) err = missingSecret(err, c.req.path);
  else if (!(err instanceof HttpError) && !(err instanceof ApiError) && retryable(err)) {
    log.warn('request failed, retryable', { path: c.req.path, error: String(err) });
    err = c.req.path.startsWith('/admin')
      ? new ApiError(503, 'unavailable', 'Temporarily unavailable; retry the request (it is safe to repeat)')
      : new HttpError(503, ErrorCode.InternalError, 'Temporarily unavailable; retry the request', {
          headers: { 'retry-after': '1' },
        });
  }
  if (err instanceof ApiError) {
    const error =
      err.issues === undefined
        ? { code: err.code, message: err.message }
        : { code: err.code, message: err.message, issues: err.issues };
    if (err.status === 503) c.header('retry-after', '1');
    return c.json({ error }, err.status);
  }
  let http: HttpError;
  if (err instanceof HttpError) {
    http = err;
    if (err.status >= 500) log.error('request failed', { status: err.status, code: err.code, error: err.message });
    else log.warn('request rejected', { status: err.status, code: err.code, error: err.message, method: c.req.method });
  } else {
    const misconfigured = err instanceof ConfigError;
    log.error(misconfigured ? 'configuration error' : 'unhandled error', {
      path: c.req.path,
      error: String(err),
      stack: err.stack,
    });
    http = new HttpError(
      500,
      ErrorCode.InternalError,
      misconfigured ? 'Server misconfigured; see logs' : 'Internal error',
    );
  }
  return new Response(errorJson(http.id, http), {
    status: http.status,
    headers: { 'content-type': 'application/json', ...http.headers },
  });
});
