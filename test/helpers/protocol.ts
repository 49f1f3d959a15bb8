/**
 * MCP wire helpers shared by the workerd suites (through SELF or the Worker) and the Node e2e
 * suites (through real HTTP): request builders, header sets and error checks. Runtime-neutral on
 * purpose: only Request/Response/fetch (and vitest's expect), no `cloudflare:test` and no `node:` import.
 */
import { expect } from 'vitest';

export const ACCEPT = 'application/json, text/event-stream';
export const LEGACY = '2025-11-25';
export const MODERN = '2026-07-28';
/** A session id as the gateway mints it: `<128-bit random>.<revision index>.<minted at>.<client label>.<mac>` (src/session/token.ts). */
export const SESSION_ID_SHAPE = /^[A-Za-z0-9_-]{22}\.\d\.[0-9a-z]{1,11}\.[A-Za-z0-9_-]{0,128}\.[A-Za-z0-9_-]{22}$/;

/** Anything that fetches: SELF.fetch, worker.fetch bound to an env, or the global fetch. */
export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

let nextId = 1;
/** A JSON-RPC request with a fresh id. */
export const request = (method: string, params?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: nextId++,
  method,
  ...(params ? { params } : {}),
});

export const initialize = (version = LEGACY, capabilities: Record<string, unknown> = {}, name = 'test') =>
  request('initialize', { protocolVersion: version, capabilities, clientInfo: { name, version: '1' } });

export interface PostOptions {
  session?: string;
  version?: string;
  headers?: Record<string, string>;
}

/** The header set of a legacy-era POST: both Accept types, JSON, and the session's headers when given. */
export function postHeaders(opts: PostOptions = {}): Record<string, string> {
  const headers: Record<string, string> = { accept: ACCEPT, 'content-type': 'application/json', ...opts.headers };
  if (opts.session) headers['mcp-session-id'] = opts.session;
  if (opts.version) headers['mcp-protocol-version'] = opts.version;
  return headers;
}

export const postInit = (body: unknown, opts: PostOptions = {}): RequestInit => ({
  method: 'POST',
  headers: postHeaders(opts),
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

/** The headers of a session's standalone GET stream (optionally resuming). */
export function streamHeaders(session: string, version = LEGACY, lastEventId?: string): Record<string, string> {
  const headers: Record<string, string> = {
    accept: 'text/event-stream',
    'mcp-session-id': session,
    'mcp-protocol-version': version,
  };
  if (lastEventId) headers['last-event-id'] = lastEventId;
  return headers;
}

/** The 2026-07-28 `_meta` envelope every modern request carries. */
export const envelope = (extra: Record<string, unknown> = {}, capabilities: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': capabilities,
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
  ...extra,
});

/** The headers a modern request needs, derived from its method and (for prompts/get) name. */
export function modernHeaders(method: string, name?: string): Record<string, string> {
  const headers: Record<string, string> = {
    accept: ACCEPT,
    'content-type': 'application/json',
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
  };
  if (name !== undefined) headers['mcp-name'] = name;
  return headers;
}

/** A whole modern POST: the body with its envelope, and the matching headers. */
export function modernPost(
  method: string,
  params: Record<string, unknown> = {},
  capabilities: Record<string, unknown> = {},
) {
  const body = request(method, {
    ...params,
    _meta: envelope((params._meta as Record<string, unknown>) ?? {}, capabilities),
  });
  const init: RequestInit = {
    method: 'POST',
    headers: modernHeaders(method, typeof params.name === 'string' ? params.name : undefined),
    body: JSON.stringify(body),
  };
  return { body, init };
}

/** Initializes a legacy session and sends notifications/initialized; its id and negotiated revision. */
export async function openSessionWith(
  fetch: Fetch,
  url: string,
  version = LEGACY,
  capabilities: Record<string, unknown> = {},
): Promise<{ id: string; version: string; result: any }> {
  const res = await fetch(url, postInit(initialize(version, capabilities)));
  if (res.status !== 200) throw new Error(`initialize failed: ${res.status} ${await res.text()}`);
  const id = res.headers.get('mcp-session-id');
  const body = (await res.json()) as any;
  if (!id) throw new Error('no session id');
  const negotiated = body.result.protocolVersion as string;
  const note = await fetch(
    url,
    postInit({ jsonrpc: '2.0', method: 'notifications/initialized' }, { session: id, version: negotiated }),
  );
  if (note.status !== 202) throw new Error(`notifications/initialized: HTTP ${note.status}`);
  return { id, version: negotiated, result: body.result };
}

/** Asserts an HTTP error and returns its JSON-RPC error object. */
export async function expectError(
  res: Response,
  status: number,
  code: number,
): Promise<{ code: number; message: string; data?: any }> {
  const text = await res.text();
  expect(res.status, `HTTP status of ${text}`).toBe(status);
  const body = JSON.parse(text);
  expect(body?.error?.code, `JSON-RPC code of ${text}`).toBe(code);
  return body.error;
}
