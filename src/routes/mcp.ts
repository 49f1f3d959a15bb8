/**
 * /mcp: the one MCP endpoint for both eras. Thin on purpose: it runs the
 * HTTP guards, reads the body, decides the era from the body (spec
 * 2026-07-28 §6) and hands over to that era's entry. GET and DELETE exist
 * only in the legacy era.
 */
import { Hono } from 'hono';
import { configOf } from '../lib/config.js';
import { eraOf } from '../rpc/era.js';
import { parseBody } from '../rpc/envelope.js';
import { ErrorCode, HttpError } from '../rpc/errors.js';
import type { Transport } from '../rpc/context.js';
import { legacyDelete, legacyGet, legacyPost, SESSION_HEADER } from '../rpc/legacy.js';
import { modernPost } from '../rpc/modern.js';
import { browserGuard, mediaTypes, postGuard, type AppEnv } from './guards.js';
import { mcpRateLimit } from './limits.js';
import type { Context } from 'hono';

export const mcp = new Hono<AppEnv>();

// The per-client rate limit comes first, for every method (limits.ts).
mcp.use('*', mcpRateLimit);
// POST runs the browser guard inside postGuard (one middleware layer on the hot path); the rest run it on its own.
mcp.on(['GET', 'DELETE', 'OPTIONS', 'PUT', 'PATCH'], '/', browserGuard);

function transport(c: Context<AppEnv>): Transport {
  const cfg = configOf(c.env);
  if (!cfg.signingSecret) {
    console.error(JSON.stringify({ msg: 'SIGNING_SECRET is not set; run `wrangler secret put SIGNING_SECRET`' }));
    throw new HttpError(500, ErrorCode.InternalError, 'Server misconfigured: signing secret missing');
  }
  // Headers only one era reads are read on first use (each read crosses into the runtime).
  let sessionId: string | undefined | null = null;
  return {
    env: c.env,
    cfg,
    secret: cfg.signingSecret,
    waitUntil: (p) => c.executionCtx.waitUntil(p),
    get sessionId() {
      if (sessionId === null) sessionId = c.req.header(SESSION_HEADER);
      return sessionId;
    },
    protocolVersion: c.req.header('mcp-protocol-version'),
    header: (name) => c.req.header(name),
    get url() {
      return c.req.url;
    },
  };
}

/** The body as text; a body the client cut short (its connection lost mid-body) is the client's error, not ours. */
async function readText(c: Context<AppEnv>): Promise<string> {
  try {
    return await c.req.text();
  } catch {
    throw new HttpError(400, ErrorCode.ParseError, 'Parse error: the body could not be read in full');
  }
}

mcp.post('/', postGuard, async (c) => {
  const t = transport(c);
  const body = parseBody(await readText(c));
  return eraOf(body, t.protocolVersion) === 'modern' ? modernPost(t, body) : legacyPost(t, body);
});

mcp.get('/', (c) => {
  if (!mediaTypes(c.req.header('accept')).has('text/event-stream')) {
    throw new HttpError(406, ErrorCode.Transport, 'Not Acceptable: a GET stream needs Accept: text/event-stream');
  }
  return legacyGet(transport(c), c.req.header('last-event-id'));
});

mcp.delete('/', (c) => legacyDelete(transport(c)));

mcp.on(['PUT', 'PATCH'], '/', () => {
  throw new HttpError(405, ErrorCode.Transport, 'Method Not Allowed', { headers: { allow: 'GET, POST, DELETE' } });
});
