/**
 * The MCP wire constants the harnesses send (both protocol eras), JSON-RPC bodies, and the one
 * rule for reading a reply: HTTP 200 with a JSON-RPC `result` (plain JSON or SSE), else the
 * measurement stops with what came back.
 */
import { sseMessages } from './sse.mjs';

export const PROTOCOL = '2025-11-25';
export const MODERN = '2026-07-28';
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
};
export const JSON_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

/** A request body with id 1 (or `id`). */
export const rpc = (method, params, id = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
export const notification = (method) => JSON.stringify({ jsonrpc: '2.0', method });

/** The `result` of the reply with `id` (the only reply when undefined); throws on anything else. */
export function rpcResult(r, what, id) {
  if (r.status !== 200) throw new Error(`${what}: HTTP ${r.status}: ${r.text.slice(0, 500)}`);
  let msgs;
  try {
    msgs = String(r.headers['content-type'] ?? '').includes('text/event-stream')
      ? sseMessages(r.text)
      : [JSON.parse(r.text)];
  } catch {
    throw new Error(`${what}: body is not JSON: ${r.text.slice(0, 500)}`);
  }
  const msg = id === undefined ? msgs[0] : msgs.find((m) => m.id === id);
  if (!msg) throw new Error(`${what}: no reply with id ${id} (HTTP ${r.status}): ${r.text.slice(0, 400)}`);
  if (msg.error || !('result' in msg)) throw new Error(`${what}: no JSON-RPC result: ${r.text.slice(0, 500)}`);
  return msg.result;
}
