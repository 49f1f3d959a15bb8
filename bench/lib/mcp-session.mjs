/**
 * Opening a legacy (2025-11-25) session the way each harness's client does: `initialize`,
 * checked, and, where the harness's client sends it, `notifications/initialized` (202).
 * `send(url, { headers, body })` is the harness's client (lib/http.mjs), so the session is
 * opened on the same connections the harness then uses.
 */
import assert from 'node:assert/strict';
import { JSON_HEADERS, PROTOCOL, notification, rpc, rpcResult } from './jsonrpc.mjs';

export const initializeBody = (clientInfo) =>
  rpc('initialize', { protocolVersion: PROTOCOL, capabilities: {}, clientInfo });

/** Resolves { sessionId, result, ms (of the initialize) }. */
export async function openSession(
  send,
  url,
  { clientInfo, headers = JSON_HEADERS, initialized = false, what = 'initialize' },
) {
  const init = await send(url, { headers, body: initializeBody(clientInfo) });
  const result = rpcResult(init, what);
  const sessionId = init.headers['mcp-session-id'];
  if (!sessionId) throw new Error(`${what}: no mcp-session-id header`);
  assert.equal(result.protocolVersion, PROTOCOL, `${what}: protocol version`);
  if (initialized) {
    const sessionHeaders = { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL };
    const note = await send(url, { headers: sessionHeaders, body: notification('notifications/initialized') });
    if (note.status !== 202)
      throw new Error(`notifications/initialized after ${what}: HTTP ${note.status}: ${note.text.slice(0, 300)}`);
  }
  return { sessionId, result, ms: init.ms };
}
