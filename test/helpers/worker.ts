/**
 * Protocol-shaped helpers for tests that run inside workerd: they speak to
 * the Worker through SELF exactly as an HTTP client would.
 */
import { env, SELF } from 'cloudflare:test';
import { publishSnapshot } from '../../src/catalog/publish.js';
import type { PromptRecord } from '../../src/catalog/types.js';

export const MCP_URL = 'https://gateway.test/mcp';
export const ACCEPT = 'application/json, text/event-stream';

let generation = Date.now();

/** Publishes records as a new catalog generation, through the same path as the admin API. */
export async function publish(prompts: PromptRecord[]): Promise<number> {
  generation += 1;
  await publishSnapshot(env, { generation, updatedAt: new Date().toISOString(), prompts });
  return generation;
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

export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
  comment?: string;
}

/** An open SSE stream, read frame by frame. */
export interface EventStream {
  response: Response;
  /** Resolves with the next frame (comments included), or rejects after `ms`. */
  next(ms?: number): Promise<SseFrame>;
  /** The next frame that carries data, skipping comments, retry hints and priming events. */
  nextMessage(ms?: number): Promise<{ id?: string; message: any }>;
  /** True once the server has closed the stream. */
  ended(ms?: number): Promise<boolean>;
  close(): Promise<void>;
}

/** GET /mcp as a session's standalone stream (optionally resuming). */
export async function openStream(session: Pick<Session, 'id' | 'version'>, lastEventId?: string): Promise<EventStream> {
  const headers: Record<string, string> = { accept: 'text/event-stream', 'mcp-session-id': session.id, 'mcp-protocol-version': session.version };
  if (lastEventId) headers['last-event-id'] = lastEventId;
  const response = await SELF.fetch(MCP_URL, { headers });
  return readEvents(response);
}

export function readEvents(response: Response): EventStream {
  if (!response.body) throw new Error(`no stream: HTTP ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  let done = false;
  const frames: SseFrame[] = [];
  const parse = () => {
    let i;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const f: SseFrame = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) f.comment = line.slice(1).trim();
        else if (line.startsWith('id:')) f.id = line.slice(3).trim();
        else if (line.startsWith('event:')) f.event = line.slice(6).trim();
        else if (line.startsWith('retry:')) f.retry = Number(line.slice(6));
        else if (line.startsWith('data:')) f.data = (f.data === undefined ? '' : f.data + '\n') + line.slice(5).trimStart();
      }
      frames.push(f);
    }
  };
  const pull = async (ms: number): Promise<boolean> => {
    if (done) return false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, rej) => (timer = setTimeout(() => rej(new Error(`no SSE frame within ${ms} ms`)), ms)));
    try {
      const r = await Promise.race([reader.read(), timeout]);
      if (r.done) {
        done = true;
        return false;
      }
      buf += r.value;
      parse();
      return true;
    } finally {
      clearTimeout(timer);
    }
  };
  const next = async (ms = 3000): Promise<SseFrame> => {
    const deadline = Date.now() + ms;
    while (frames.length === 0) {
      if (!(await pull(Math.max(1, deadline - Date.now())))) throw new Error('stream ended');
    }
    return frames.shift()!;
  };
  return {
    response,
    next,
    async nextMessage(ms = 3000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const f = await next(Math.max(1, deadline - Date.now()));
        if (f.data) return { id: f.id, message: JSON.parse(f.data) };
      }
    },
    async ended(ms = 3000) {
      const deadline = Date.now() + ms;
      try {
        while (await pull(Math.max(1, deadline - Date.now()))) frames.length = 0;
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      await reader.cancel().catch(() => {});
    },
  };
}
