/**
 * The transport error matrix, one table for both sides: test/flow/transport.test.ts runs it inside
 * workerd, test/e2e/legacy-sdk.test.ts over real HTTP against `wrangler dev` (where undici's own
 * default headers and the dev server's HTTP stack are in the path). Each case needs no session or
 * configuration beyond the defaults of both (an origin of evil.example is never allowed).
 */
import { expect } from 'vitest';
import { ACCEPT, type Fetch } from './protocol.js';

export interface TransportCase {
  name: string;
  method?: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH' | 'OPTIONS' | 'PROPFIND';
  /** Over the defaults (POST: both Accept types and JSON); null drops a default. */
  headers?: Record<string, string | null>;
  /** Sent as is when a string, as JSON otherwise; POST only (PUT/PATCH send `{}`). */
  body?: unknown;
  status: number;
  code: number;
  /** The request id the error must echo, or 'none' when none could be read; not checked when absent. */
  id?: number | 'none';
  message?: RegExp;
  /** The Allow header a 405 carries. */
  allow?: string;
}

const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
const init = { jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-11-25' } };
const EVIL = 'https://evil.example';

export const TRANSPORT_CASES: TransportCase[] = [
  // Accept must list both types, read by media type, case-insensitively.
  ...['application/json', 'text/event-stream', '*/*', 'application/jsonx, text/event-streams'].map(
    (accept): TransportCase => ({
      name: `406 for Accept: ${accept}`,
      headers: { accept },
      body: init,
      status: 406,
      code: -32000,
    }),
  ),
  { name: '406 with no Accept header at all', headers: { accept: null }, body: ping, status: 406, code: -32000 },
  {
    name: '415 when Content-Type is not JSON',
    headers: { 'content-type': 'text/plain' },
    body: ping,
    status: 415,
    code: -32000,
  },
  { name: '400 -32700 on malformed JSON', body: '{"jsonrpc":"2.0",', status: 400, code: -32700, id: 'none' },
  // A bad envelope is -32600, with the id echoed when it was readable.
  { name: '400 -32600 for a bare number', body: 42, status: 400, code: -32600, id: 'none' },
  {
    name: '400 -32600 for jsonrpc 1.0 (id echoed)',
    body: { jsonrpc: '1.0', id: 7, method: 'ping' },
    status: 400,
    code: -32600,
    id: 7,
  },
  {
    name: '400 -32600 for a null id',
    body: { jsonrpc: '2.0', id: null, method: 'ping' },
    status: 400,
    code: -32600,
    id: 'none',
  },
  {
    name: '400 -32600 for a numeric method (id echoed)',
    body: { jsonrpc: '2.0', id: 3, method: 12 },
    status: 400,
    code: -32600,
    id: 3,
  },
  {
    name: '400 -32600 for array params (id echoed)',
    body: { jsonrpc: '2.0', id: 4, method: 'ping', params: [1] },
    status: 400,
    code: -32600,
    id: 4,
  },
  { name: '400 -32600 for no method (id echoed)', body: { jsonrpc: '2.0', id: 5 }, status: 400, code: -32600, id: 5 },
  // An integer past 2^53 would be echoed as another number; it is refused as an id that cannot be read.
  {
    name: '400 -32600 for an integer id past 2^53 (none echoed)',
    body: '{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}',
    status: 400,
    code: -32600,
    id: 'none',
  },
  // Under a modern header, the JSON-RPC shape is judged before the envelope (the SDK's order).
  {
    name: '400 -32600 for a null id under a 2026-07-28 header',
    headers: { 'mcp-protocol-version': '2026-07-28' },
    body: { jsonrpc: '2.0', id: null, method: 'prompts/list' },
    status: 400,
    code: -32600,
    id: 'none',
  },
  {
    name: '400 -32600 for jsonrpc 1.0 under a 2026-07-28 header (id echoed)',
    headers: { 'mcp-protocol-version': '2026-07-28' },
    body: { jsonrpc: '1.0', id: 8, method: 'prompts/list' },
    status: 400,
    code: -32600,
    id: 8,
  },
  // A body that is no message under a modern header is -32600 too, never a legacy "unsupported version".
  {
    name: '400 -32600 for no method under a 2026-07-28 header (id echoed)',
    headers: { 'mcp-protocol-version': '2026-07-28' },
    body: { jsonrpc: '2.0', id: 5 },
    status: 400,
    code: -32600,
    id: 5,
  },
  {
    name: '400 -32600 for a bare number under a 2026-07-28 header',
    headers: { 'mcp-protocol-version': '2026-07-28' },
    body: 42,
    status: 400,
    code: -32600,
    id: 'none',
  },
  {
    name: '400 -32600 for a batch under a 2026-07-28 header, which has none',
    headers: { 'mcp-protocol-version': '2026-07-28' },
    body: [{ jsonrpc: '2.0', id: 6, method: 'prompts/list' }],
    status: 400,
    code: -32600,
    message: /batch/i,
  },
  {
    name: '400 -32000 for an unsupported MCP-Protocol-Version (id echoed)',
    headers: { 'mcp-protocol-version': '1999-01-01' },
    body: ping,
    status: 400,
    code: -32000,
    id: 1,
  },
  // Sessions at the transport.
  // The body was read before the session was checked, so its id is echoed.
  {
    name: '400 without Mcp-Session-Id, naming the header',
    body: ping,
    status: 400,
    code: -32000,
    message: /Mcp-Session-Id/i,
    id: 1,
  },
  {
    name: '400 without Mcp-Session-Id, for a notification (no id to echo)',
    body: { jsonrpc: '2.0', method: 'notifications/initialized' },
    status: 400,
    code: -32000,
    id: 'none',
  },
  {
    name: '404 -32001 for a garbage session id',
    headers: { 'mcp-session-id': 'not-a-session' },
    body: ping,
    status: 404,
    code: -32001,
    id: 1,
  },
  {
    name: '404 -32001 for a well-shaped session id we did not sign',
    headers: { 'mcp-session-id': 'AAAAAAAAAAAAAAAAAAAAAA.0.AAAAAAAAAAAAAAAAAAAAAA' },
    body: ping,
    status: 404,
    code: -32001,
    id: 1,
  },
  { name: '400 for DELETE without Mcp-Session-Id', method: 'DELETE', status: 400, code: -32000 },
  // The origin check comes first, on every method: 403 before 406/415.
  {
    name: '403 for a disallowed Origin before 406/415',
    headers: { origin: EVIL, accept: 'text/html', 'content-type': 'text/plain' },
    body: 'x',
    status: 403,
    code: -32000,
  },
  {
    name: '403 for a disallowed Origin on GET',
    method: 'GET',
    headers: { origin: EVIL, accept: 'text/event-stream' },
    status: 403,
    code: -32000,
  },
  {
    name: '403 for a disallowed Origin on DELETE',
    method: 'DELETE',
    headers: { origin: EVIL },
    status: 403,
    code: -32000,
  },
  {
    name: '403 for a disallowed Origin on a method the endpoint does not have',
    method: 'PROPFIND',
    headers: { origin: EVIL },
    status: 403,
    code: -32000,
  },
  {
    name: '406 for the same POST without an Origin',
    headers: { accept: 'text/html', 'content-type': 'text/plain' },
    body: 'x',
    status: 406,
    code: -32000,
  },
  // OPTIONS without an Origin is no CORS preflight; an unknown method is no method of this endpoint.
  ...(['PUT', 'PATCH', 'OPTIONS', 'PROPFIND'] as const).map((method): TransportCase => ({
    name: `405 with Allow for ${method}`,
    method,
    status: 405,
    code: -32000,
    allow: 'GET, POST, DELETE',
  })),
];

export function transportRequest(c: TransportCase): RequestInit {
  const method = c.method ?? 'POST';
  const defaults: Record<string, string> =
    method === 'POST'
      ? { accept: ACCEPT, 'content-type': 'application/json' }
      : method === 'PUT' || method === 'PATCH'
        ? { 'content-type': 'application/json' }
        : {};
  const headers = Object.fromEntries(
    Object.entries({ ...defaults, ...c.headers }).filter((e): e is [string, string] => e[1] !== null),
  );
  const body =
    method === 'POST'
      ? typeof c.body === 'string'
        ? c.body
        : JSON.stringify(c.body)
      : method === 'PUT' || method === 'PATCH'
        ? '{}'
        : undefined;
  return { method, headers, body };
}

/** Sends one case and asserts its status, JSON-RPC error code, echoed id, message and Allow header. */
export async function expectTransportCase(fetch: Fetch, url: string, c: TransportCase): Promise<void> {
  const res = await fetch(url, transportRequest(c));
  const text = await res.text();
  expect(res.status, `${c.name}: HTTP status of ${text}`).toBe(c.status);
  const body = JSON.parse(text);
  expect(body.jsonrpc, `${c.name}: ${text}`).toBe('2.0');
  expect(body.error?.code, `${c.name}: JSON-RPC code of ${text}`).toBe(c.code);
  if (c.id !== undefined)
    expect(body.id === undefined ? 'none' : body.id, `${c.name}: echoed id in ${text}`).toBe(c.id);
  if (c.message) expect(body.error.message, c.name).toMatch(c.message);
  if (c.allow) expect(res.headers.get('allow'), `${c.name}: Allow`).toBe(c.allow);
}
