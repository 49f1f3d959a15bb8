/**
 * Protocol-shaped helpers for tests that run inside workerd: they speak to
 * the Worker through SELF exactly as an HTTP client would.
 */
import { env, SELF } from 'cloudflare:test';
import { catalogWriter } from '../../src/catalog/stubs.js';
import type { PromptRecord } from '../../src/catalog/types.js';
import { readEvents, type EventStream } from './sse.js';

export { readEvents, type EventStream };

export const MCP_URL = 'https://gateway.test/mcp';
export const ACCEPT = 'application/json, text/event-stream';

let revision = 0;

/**
 * Publishes exactly these records (pruning the rest) through the catalog
 * writer, the same path as the admin API. Identical content is not a change,
 * so each call also stamps a revision into the last fixture's text: every
 * call makes a new generation, and the listed names stay the same.
 */
export async function publish(prompts: PromptRecord[]): Promise<number> {
  revision += 1;
  const stamped = prompts.map((p, i) =>
    i === prompts.length - 1 ? { ...p, messages: [...p.messages, { role: 'assistant' as const, content: { type: 'text' as const, text: `rev ${revision}` } }] } : p,
  );
  const r = await catalogWriter(env).publishSet(stamped, { prune: true, dryRun: false });
  if (!r.ok) throw new Error(`publish failed: ${JSON.stringify(r)}`);
  return r.generation;
}

export interface PostOptions {
  session?: string;
  version?: string;
  headers?: Record<string, string>;
}

export function post(body: unknown, opts: PostOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { accept: ACCEPT, 'content-type': 'application/json', ...opts.headers };
  if (opts.session) headers['mcp-session-id'] = opts.session;
  if (opts.version) headers['mcp-protocol-version'] = opts.version;
  return SELF.fetch(MCP_URL, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

let nextId = 1;
export const request = (method: string, params?: Record<string, unknown>) => ({ jsonrpc: '2.0', id: nextId++, method, ...(params ? { params } : {}) });

export interface Session {
  id: string;
  version: string;
  /** Sends one request in this session and returns the parsed JSON-RPC reply. */
  call(method: string, params?: Record<string, unknown>): Promise<{ status: number; body: any }>;
}

export async function openSession(version = '2025-11-25', capabilities: Record<string, unknown> = {}): Promise<Session> {
  const res = await post(request('initialize', { protocolVersion: version, capabilities, clientInfo: { name: 'test', version: '1' } }));
  if (res.status !== 200) throw new Error(`initialize failed: ${res.status} ${await res.text()}`);
  const id = res.headers.get('mcp-session-id');
  const body = (await res.json()) as any;
  if (!id) throw new Error('no session id');
  const negotiated = body.result.protocolVersion as string;
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { session: id, version: negotiated });
  return {
    id,
    version: negotiated,
    async call(method, params) {
      const r = await post(request(method, params), { session: id, version: negotiated });
      return { status: r.status, body: await r.json() };
    },
  };
}

/** Asserts an HTTP error and returns its JSON-RPC error object. */
export async function expectError(res: Response, status: number, code: number): Promise<{ code: number; message: string; data?: any }> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`expected HTTP ${status}, got ${res.status}: ${text}`);
  const body = JSON.parse(text);
  if (body?.error?.code !== code) throw new Error(`expected JSON-RPC ${code}, got ${text}`);
  return body.error;
}

/** GET /mcp as a session's standalone stream (optionally resuming). */
export async function openStream(session: Pick<Session, 'id' | 'version'>, lastEventId?: string): Promise<EventStream> {
  const headers: Record<string, string> = { accept: 'text/event-stream', 'mcp-session-id': session.id, 'mcp-protocol-version': session.version };
  if (lastEventId) headers['last-event-id'] = lastEventId;
  const response = await SELF.fetch(MCP_URL, { headers });
  return readEvents(response);
}

