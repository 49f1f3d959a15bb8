/**
 * HTTP-level guards in front of /mcp: Origin (DNS-rebinding defence), CORS
 * for browser clients such as the MCP Inspector, body size, and the Accept
 * and Content-Type rules of Streamable HTTP. Each failure throws an
 * HttpError; `app.onError` alone turns it into a response.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { readCapped } from '../lib/body.js';
import { configOf } from '../lib/config.js';
import type { OriginPattern } from '../lib/config-vars.js';
import { ErrorCode, HttpError } from '../rpc/errors.js';
import type { AppEnv } from '../env.js';
import { headerOf } from './scope.js';

export function originAllowed(origin: string, allowed: readonly OriginPattern[]): boolean {
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    return false;
  }
  const scheme = u.protocol.slice(0, -1);
  const port = u.port || (scheme === 'https' ? '443' : '80');
  return allowed.some((p) => p.scheme === scheme && p.host === u.hostname && (p.port === null || p.port === port));
}

/**
 * The response headers a browser client may read, on every /mcp answer including those made before
 * the guard ran (earlyCorsHeaders): Retry-After, so a 429 or 503 says when to come back, and
 * WWW-Authenticate, whose 401/403 challenge starts or steps up the client's OAuth flow.
 */
const EXPOSED = ['mcp-session-id', 'mcp-protocol-version', 'www-authenticate', 'retry-after'];

const corsForMcp = cors({
  // Only reached for origins already checked below.
  origin: (origin) => origin,
  allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
  allowHeaders: [
    'content-type',
    'accept',
    'authorization',
    'mcp-session-id',
    'mcp-protocol-version',
    'mcp-method',
    'mcp-name',
    'last-event-id',
  ],
  exposeHeaders: EXPOSED,
  maxAge: 86400,
});

/**
 * Browser requests only (those with an Origin): a disallowed origin gets 403
 * (spec §2, DNS-rebinding defence), an allowed one gets CORS headers.
 * Requests without Origin come from non-browser clients and skip both.
 */
export const browserGuard: MiddlewareHandler<AppEnv> = async (c, next) => {
  const origin = allowedOrigin(c);
  if (origin === undefined) return next();
  return corsForMcp(c, next);
};

/** The request's Origin when it is allowed; undefined without one; a 403 for a disallowed one. */
export function allowedOrigin(c: Context<AppEnv>): string | undefined {
  const origin = headerOf(c, 'origin');
  if (origin !== undefined && !originAllowed(origin, configOf(c.env).allowedOrigins))
    throw new HttpError(403, ErrorCode.Transport, `Forbidden: origin ${origin.slice(0, 100)} is not allowed`);
  return origin;
}

/**
 * For an answer made before the browser guard ran (the per-client rate limit's 429): the Origin
 * rule still comes first (403), and an allowed browser may read the answer as after the guard.
 */
export function earlyCorsHeaders(c: Context<AppEnv>): Record<string, string> {
  const origin = allowedOrigin(c);
  return origin === undefined
    ? {}
    : { 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSED.join(','), vary: 'Origin' };
}

const tooLarge = (max: number) =>
  new HttpError(413, ErrorCode.Transport, `Payload Too Large: the body limit is ${max} bytes`);

const limitBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  const cfg = configOf(c.env);
  // The common case, a Content-Length and no chunking, is decided without touching `req.body`
  // (which builds a stream object per request: ~2 % of the Worker's CPU profile on POST).
  const length = headerOf(c, 'content-length');
  if (length !== undefined && headerOf(c, 'transfer-encoding') === undefined) {
    if (Number(length) > cfg.maxBodyBytes) throw tooLarge(cfg.maxBodyBytes);
    return next();
  }
  const body = c.req.raw.body as ReadableStream<Uint8Array> | null;
  if (!body) return next();
  let bytes: Uint8Array;
  try {
    bytes = await readCapped(body, cfg.maxBodyBytes, () => tooLarge(cfg.maxBodyBytes));
  } catch (e) {
    if (e instanceof HttpError) throw e;
    throw new HttpError(400, ErrorCode.ParseError, 'Parse error: the body could not be read in full');
  }
  c.req.raw = new Request(c.req.raw, { body: bytes });
  return next();
};

/** Whether a weight is the qvalue 0 (RFC 9110 §12.4.2: `0`, `0.`, `0.0` … `0.000`). */
function isZeroWeight(value: string): boolean {
  if (value[0] !== '0' || value.length > 5) return false;
  if (value.length === 1) return true;
  if (value[1] !== '.') return false;
  for (let i = 2; i < value.length; i++) if (value[i] !== '0') return false;
  return true;
}

/** Whether a media range's parameters (after its first `;`) give it the weight q=0: "not acceptable". */
function refused(params: string[]): boolean {
  for (let i = 1; i < params.length; i++) {
    const p = params[i]!;
    const eq = p.indexOf('=');
    if (eq >= 0 && p.slice(0, eq).trim().toLowerCase() === 'q') return isZeroWeight(p.slice(eq + 1).trim());
  }
  return false;
}

/**
 * The media types an Accept header lists as acceptable, lower-cased, parameters dropped
 * (RFC 9110 §12.5.1): a range weighted q=0 is one the client refuses, so it is left out.
 */
export function mediaTypes(accept: string | undefined): Set<string> {
  const out = new Set<string>();
  for (const part of (accept ?? '').split(',')) {
    // Most clients send no parameters: only a range with one is split further.
    if (!part.includes(';')) out.add(part.trim().toLowerCase());
    else {
      const params = part.split(';');
      if (!refused(params)) out.add(params[0]!.trim().toLowerCase());
    }
  }
  return out;
}

/** The last Accept value seen and whether it lists both types: clients send the same one every time. */
let lastAccept: { value: string | undefined; ok: boolean } = { value: undefined, ok: false };

function acceptsBoth(accept: string | undefined): boolean {
  if (accept === lastAccept.value && accept !== undefined) return lastAccept.ok;
  const types = mediaTypes(accept);
  const ok = types.has('application/json') && types.has('text/event-stream');
  lastAccept = { value: accept, ok };
  return ok;
}

/** POST must accept both JSON and SSE (406) and send JSON (415). */
function checkPostHeaders(c: Context<AppEnv>): void {
  if (!acceptsBoth(headerOf(c, 'accept'))) {
    throw new HttpError(
      406,
      ErrorCode.Transport,
      'Not Acceptable: Accept must list both application/json and text/event-stream',
    );
  }
  const type = headerOf(c, 'content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new HttpError(415, ErrorCode.Transport, 'Unsupported Media Type: Content-Type must be application/json');
  }
}

const checkedPost: MiddlewareHandler<AppEnv> = (c, next) => {
  checkPostHeaders(c);
  return limitBody(c, next);
};

/**
 * Everything in front of a POST, in this order, as one middleware: the
 * browser guard, then 406/415, then the body limit. One layer instead of
 * three: each Hono middleware layer is an async frame and a promise on
 * every request.
 */
export const postGuard: MiddlewareHandler<AppEnv> = (c, next) =>
  headerOf(c, 'origin') === undefined
    ? checkedPost(c, next)
    : browserGuard(c, () => checkedPost(c, next) as Promise<void>);
