/**
 * /mcp: the one MCP endpoint for both eras. Thin on purpose: it runs the
 * HTTP guards, reads the body, decides the era from the body (spec
 * 2026-07-28 §6) and hands over to that era's entry. GET and DELETE exist
 * only in the legacy era.
 */
import { Hono } from 'hono';
import { eraOf } from '../rpc/era.js';
import { parseBody } from '../rpc/envelope.js';
import { ErrorCode, HttpError } from '../rpc/errors.js';
import { legacyDelete, legacyPost } from '../rpc/legacy.js';
import { legacyGet } from '../rpc/legacy-stream.js';
import { modernPost } from '../rpc/modern.js';
import type { AppEnv } from '../env.js';
import { allowedOrigin, browserGuard, mediaTypes, postGuard } from './guards.js';
import { identify } from './auth.js';
import { mcpRateLimit } from './limits.js';
import { headerOf, methodOf, signingScopeOf } from './scope.js';
import type { Context, MiddlewareHandler } from 'hono';

export const mcp = new Hono<AppEnv>();

/** The Origin rule comes first on every method (spec §2): a disallowed origin is 403 even where the method is refused. */
const methodNotAllowed = (c: Context<AppEnv>) => {
  allowedOrigin(c);
  throw new HttpError(405, ErrorCode.Transport, 'Method Not Allowed', { headers: { allow: 'GET, POST, DELETE' } });
};

// Hono answers HEAD with the GET route; a HEAD here would open (and replace) the session's stream.
const noHead: MiddlewareHandler<AppEnv> = (c, next) => (methodOf(c) === 'HEAD' ? methodNotAllowed(c) : next());
mcp.use('/', noHead);
// The per-client rate limit runs before every method's handler; only HEAD is refused earlier (limits.ts).
mcp.use('*', mcpRateLimit);
// POST runs the browser guard inside postGuard (one middleware layer on the hot path); the rest run it on its own.
mcp.on(['GET', 'DELETE', 'OPTIONS', 'PUT', 'PATCH'], '/', browserGuard);

/** Strict: JSON-RPC messages are UTF-8, and a byte that is not must not become U+FFFD in an argument. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The body as text; a body the client cut short (its connection lost mid-body) is the client's error, not ours. */
async function readText(c: Context<AppEnv>): Promise<string> {
  let bytes: ArrayBuffer;
  try {
    bytes = await c.req.arrayBuffer();
  } catch {
    throw new HttpError(400, ErrorCode.ParseError, 'Parse error: the body could not be read in full');
  }
  try {
    return utf8.decode(bytes);
  } catch {
    throw new HttpError(400, ErrorCode.ParseError, 'Parse error: the body is not valid UTF-8');
  }
}

/**
 * Who is calling (auth.ts), after the browser guard: a disallowed origin is refused before its
 * credentials are looked at, and an allowed one gets its CORS headers on a 401 too (it must read the challenge).
 */
const identified = identify('mcp');

mcp.post('/', postGuard, identified, async (c) => {
  const scope = signingScopeOf(c);
  const body = parseBody(await readText(c));
  return eraOf(body, scope.protocolVersion) === 'modern' ? modernPost(scope, body) : legacyPost(scope, body);
});

mcp.get('/', identified, (c) => {
  if (!mediaTypes(headerOf(c, 'accept')).has('text/event-stream')) {
    throw new HttpError(406, ErrorCode.Transport, 'Not Acceptable: a GET stream needs Accept: text/event-stream');
  }
  return legacyGet(signingScopeOf(c), headerOf(c, 'last-event-id'));
});

mcp.delete('/', identified, (c) => legacyDelete(signingScopeOf(c)));

// Every other method: PUT, PATCH, an OPTIONS that is no CORS preflight (no Origin), anything unknown.
mcp.all('/', methodNotAllowed);
