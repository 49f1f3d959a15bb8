/**
 * /mcp: the one MCP endpoint. Thin on purpose: it runs the HTTP guards,
 * reads the body, decides the era and hands over to that era's entry.
 */
import { Hono } from 'hono';
import { configOf } from '../lib/config.js';
import { eraOf } from '../rpc/era.js';
import { parseBody } from '../rpc/envelope.js';
import { ErrorCode, HttpError } from '../rpc/errors.js';
import { legacyDelete, legacyGet, legacyPost, SESSION_HEADER, type Transport } from '../rpc/legacy.js';
import { browserGuard, checkPostHeaders, limitBody, mediaTypes, type AppEnv } from './guards.js';
import type { Context } from 'hono';

export const mcp = new Hono<AppEnv>();

mcp.use('*', browserGuard);

function transport(c: Context<AppEnv>): Transport {
  const cfg = configOf(c.env);
  if (!cfg.signingSecret) {
    console.error(JSON.stringify({ msg: 'SIGNING_SECRET is not set; run `wrangler secret put SIGNING_SECRET`' }));
    throw new HttpError(500, ErrorCode.InternalError, 'Server misconfigured: signing secret missing');
  }
  return {
    env: c.env,
    cfg,
    secret: cfg.signingSecret,
    waitUntil: (p) => c.executionCtx.waitUntil(p),
    sessionId: c.req.header(SESSION_HEADER),
    protocolVersion: c.req.header('mcp-protocol-version'),
  };
}

mcp.post('/', checkPostHeaders, limitBody, async (c) => {
  const t = transport(c);
  const body = parseBody(await c.req.text());
  if (eraOf(body) === 'modern') {
    // Until the modern entry exists, answer as a legacy-only server would: a 400 whose
    // code is not a modern one (-32020..-32022), so dual-era clients fall back to initialize.
    throw new HttpError(400, ErrorCode.Transport, 'Bad Request: protocol 2026-07-28 is not served here yet; use initialize', {
      supported: ['2025-11-25', '2025-06-18', '2025-03-26'],
    });
  }
  return legacyPost(t, body);
});

mcp.get('/', (c) => {
  if (!mediaTypes(c.req.header('accept')).has('text/event-stream')) {
    throw new HttpError(406, ErrorCode.Transport, 'Not Acceptable: a GET stream needs Accept: text/event-stream');
  }
  return legacyGet(transport(c), c.req.header('last-event-id'));
});

mcp.delete('/', (c) => legacyDelete(transport(c)));

mcp.on(['PUT', 'PATCH'], '/', () => {
  throw new HttpError(405, ErrorCode.Transport, 'Method Not Allowed', undefined, { allow: 'GET, POST, DELETE' });
});
