/**
 * Real upstream MCP servers for tests (Node only), each on a free loopback port:
 * - `legacyServer`: SDK v1 low-level Server, sessionful Streamable HTTP, with a
 *   paginated prompts/list (2 per page) and completion;
 * - `modernServer`: SDK v2 `createMcpHandler` (2026-07-28, legacy stateless fallback);
 * - `sseServer`: SDK v1 HTTP+SSE (2024-11-05);
 * - `everything`: @modelcontextprotocol/server-everything in streamableHttp mode;
 * - `faultyServer`: hangs, 500s, garbage JSON, or closes mid-reply;
 * - `skillsServer`: SDK v2 `McpServer` with the Skills extension (`ext/skills`), modern
 *   (`createMcpHandler`) or legacy sessionful, whose skill files may change while it runs.
 */
import { spawn } from 'node:child_process';
import { afterAll } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { body, initializeReply, listen, relay, stop } from './http-server.js';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { memorySkillFiles, SkillCatalog } from '@modelcontextprotocol/server/ext/skills';
import * as z from 'zod';
import { freePort, PROJECT_ROOT } from './wrangler-dev.js';

export interface Running {
  url: string;
  close(): Promise<void>;
}

export interface LegacyPrompt {
  name: string;
  description?: string;
  args?: { name: string; required?: boolean; values?: string[] }[];
  text: string;
}

/** A prompts/get the server held open (`hold`), as it saw it end. */
export interface HeldGet {
  /** The JSON-RPC id the gateway gave the request. */
  id: unknown;
  /** The reason of the `notifications/cancelled` that named that id (the SDK aborts the handler with it). */
  cancelled?: unknown;
  /** The gateway closed the request's response stream before any answer. */
  closed: boolean;
}

/**
 * SDK v1 sessionful server with a paginated prompts/list. `prompts` may be changed while it runs. A
 * prompts/get of `opts.hold` is answered only once it is cancelled, and recorded in `held`.
 */
export async function legacyServer(
  prompts: LegacyPrompt[],
  pageSize = 2,
  opts: { hold?: string } = {},
): Promise<
  Running & {
    sessions: () => number;
    streams: () => number;
    dropSessions: () => void;
    /** prompts/list answers -32603 while on: 'listing is broken today', or the message and data given. */
    setFailing: (on: boolean | { message: string; data?: unknown }) => void;
    notifyChanged: () => Promise<void>;
    /** The headers of every request it received, in order (which credentials reached it). */
    seen: IncomingHttpHeaders[];
    /** The `_meta` of every prompts/get and completion/complete it answered, in order (what the gateway forwarded). */
    metas: (Record<string, unknown> | undefined)[];
    held: HeldGet[];
  }
> {
  const held: HeldGet[] = [];
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const servers = new Set<Server>();
  const metas: (Record<string, unknown> | undefined)[] = [];
  let failing: boolean | { message: string; data?: unknown } = false;
  const build = () => {
    const server = new Server(
      { name: 'legacy-upstream', version: '1.0.0' },
      { capabilities: { prompts: { listChanged: true }, completions: {} } },
    );
    server.setRequestHandler(ListPromptsRequestSchema, (req) => {
      if (failing === true) throw new McpError(-32603, 'listing is broken today');
      if (failing) throw new McpError(-32603, failing.message, failing.data);
      const start = Number(req.params?.cursor ?? 0);
      const page = prompts.slice(start, start + pageSize).map((p) => ({
        name: p.name,
        description: p.description,
        arguments: p.args?.map((a) => ({ name: a.name, required: a.required })),
      }));
      return start + pageSize < prompts.length
        ? { prompts: page, nextCursor: String(start + pageSize) }
        : { prompts: page };
    });
    server.setRequestHandler(GetPromptRequestSchema, (req, extra) => {
      metas.push(req.params._meta);
      if (req.params.name === opts.hold && opts.hold !== undefined) {
        const get: HeldGet = { id: extra.requestId, closed: false };
        held.push(get);
        const hold = new Promise<{ messages: [] }>((r) =>
          extra.signal.addEventListener('abort', () => r({ messages: [] }), { once: true }),
        );
        return hold.finally(() => (get.cancelled = extra.signal.reason));
      }
      const p = prompts.find((x) => x.name === req.params.name);
      if (!p) throw new McpError(-32602, `Unknown prompt ${req.params.name}`);
      for (const a of p.args ?? [])
        if (a.required && !req.params.arguments?.[a.name])
          throw new McpError(-32602, `Missing required argument ${a.name}`);
      const text = p.text.replace(/\{(\w+)\}/g, (_m, k: string) => req.params.arguments?.[k] ?? '');
      return { description: p.description, messages: [{ role: 'user', content: { type: 'text', text } }] };
    });
    server.setRequestHandler(CompleteRequestSchema, (req) => {
      metas.push(req.params._meta);
      const p = prompts.find((x) => x.name === (req.params.ref as { name?: string }).name);
      const values = (p?.args?.find((a) => a.name === req.params.argument.name)?.values ?? []).filter((v) =>
        v.startsWith(req.params.argument.value),
      );
      return { completion: { values, total: values.length, hasMore: false } };
    });
    return server;
  };
  let streams = 0;
  const seen: IncomingHttpHeaders[] = [];
  const { http, url } = await listen(async (req, res) => {
    seen.push({ ...req.headers });
    if (req.method === 'GET') {
      // The standalone change stream: counted while open, so a test can see who follows it.
      streams += 1;
      res.once('close', () => void (streams -= 1));
    }
    const sid = req.headers['mcp-session-id'] as string | undefined;
    let transport = sid ? transports.get(sid) : undefined;
    if (!transport) {
      if (sid) {
        res
          .writeHead(404)
          .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' } }));
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void transports.set(id, transport!),
      });
      transport.onclose = () => transport?.sessionId && transports.delete(transport.sessionId);
      const server = build();
      servers.add(server);
      await server.connect(transport);
    }
    const raw = req.method === 'POST' ? await body(req) : undefined;
    const msg = raw ? (JSON.parse(raw) as { id?: unknown; params?: { name?: unknown } }) : undefined;
    if (opts.hold !== undefined && msg?.params?.name === opts.hold)
      res.once('close', () => {
        const get = held.find((h) => h.id === msg.id);
        if (get && !res.writableFinished) get.closed = true;
      });
    await transport.handleRequest(req, res, msg);
  });
  return {
    url: `${url}/mcp`,
    sessions: () => transports.size,
    streams: () => streams,
    seen,
    metas,
    held,
    dropSessions: () => transports.clear(),
    setFailing: (on) => void (failing = on),
    notifyChanged: async () =>
      void (await Promise.all([...servers].map((sv) => sv.sendPromptListChanged().catch(() => undefined)))),
    close: () => stop(http),
  };
}

/**
 * SDK v2 createMcpHandler: modern 2026-07-28 requests, legacy requests served statelessly. A
 * prompts/get of `opts.gone` is answered by a proxy in front: 404 with an `{error}` body that is no
 * JSON-RPC answer (`jsonrpc` missing), as when the upstream's route has gone.
 */
export async function modernServer(
  names: string[],
  opts: { gone?: string } = {},
): Promise<Running & { notifyChanged: () => void }> {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'modern-upstream', version: '2.0.0' });
    for (const name of names) {
      server.registerPrompt(
        name,
        { description: `modern ${name}`, argsSchema: z.object({ topic: z.string() }) },
        ({ topic }) => ({
          messages: [{ role: 'user', content: { type: 'text', text: `${name} about ${topic}` } }],
        }),
      );
    }
    return server;
  });
  const { http, url } = await listen(async (req, res) => {
    const raw = req.method === 'POST' ? await body(req) : undefined;
    if (opts.gone !== undefined && raw?.includes(`"name":"${opts.gone}"`))
      return void res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { code: 404, message: 'Not Found' } }));
    await relay(req, res, raw, (r) => handler.fetch(r));
  });
  return {
    url: `${url}/mcp`,
    notifyChanged: () => void handler.notify.promptsChanged(),
    close: async () => {
      await handler.close();
      await stop(http);
    },
  };
}

export interface SkillsUpstream extends Running {
  /** The skill files, by path under the root (`<skill>/SKILL.md`); change them, then `reload()`. */
  files: Record<string, string | Uint8Array>;
  /** Re-scans the files (the SDK's `SkillCatalog.reload`) and announces resources/list_changed. */
  reload(): Promise<void>;
  /** `skills/list` answers an error while on (the prompts stay served). */
  setSkillsFailing(on: boolean): void;
  /** resources/read answers this text instead of the file while set (bytes that fail the manifest). */
  setTampered(text: string | undefined): void;
  /** resources/read answers the right file plus this item while set (an item the read did not ask for). */
  setSmuggled(item: { uri: string; mimeType?: string; text: string } | undefined): void;
  /** How many skills/list and resources/read requests it received. */
  calls: { skillsList: number; read: number };
}

/** A SKILL.md with front matter, for tests. */
export const skillMd = (name: string, description: string, body = `# ${name}\n`) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}`;

/**
 * SDK v2 `McpServer` serving skills with the official Skills extension
 * (`SkillCatalog.load(memorySkillFiles(files)).attach(server)`) and the given prompts. `legacy`:
 * sessionful 2025-11-25 Streamable HTTP (web-standard transport; `reload()` notifies each session's
 * GET stream); otherwise `createMcpHandler` (modern 2026-07-28, `handler.notify.resourcesChanged()`
 * reaches `subscriptions/listen` streams).
 */
export async function skillsServer(
  files: Record<string, string | Uint8Array>,
  opts: { legacy?: boolean; prompts?: string[] } = {},
): Promise<SkillsUpstream> {
  const catalog = await SkillCatalog.load(memorySkillFiles(files), { onWarning: () => undefined });
  const build = () => {
    const server = new McpServer({ name: 'skills-upstream', version: '2.4.0' });
    for (const name of opts.prompts ?? [])
      server.registerPrompt(name, { description: `skills ${name}` }, () => ({
        messages: [{ role: 'user', content: { type: 'text', text: `skills upstream ${name}` } }],
      }));
    catalog.attach(server);
    return server;
  };
  const handler = opts.legacy ? undefined : createMcpHandler(build);
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  let skillsFailing = false;
  let tampered: string | undefined;
  let smuggled: { uri: string; mimeType?: string; text: string } | undefined;
  const calls = { skillsList: 0, read: 0 };
  const serve = async (request: Request): Promise<Response> => {
    if (handler) return handler.fetch(request);
    const sid = request.headers.get('mcp-session-id');
    let transport = sid ? sessions.get(sid) : undefined;
    if (!transport) {
      if (sid)
        return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' } }), {
          status: 404,
        });
      const t = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, t),
      });
      transport = t;
      await build().connect(t);
    }
    return transport.handleRequest(request);
  };
  const { http, url } = await listen(async (req, res) => {
    const raw = req.method === 'POST' ? await body(req) : undefined;
    const msg = raw ? (JSON.parse(raw) as { id?: unknown; method?: string; params?: { uri?: string } }) : undefined;
    if (msg?.method === 'skills/list') calls.skillsList += 1;
    if (msg?.method === 'resources/read') calls.read += 1;
    const rpc = (payload: unknown) =>
      void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: msg?.id, ...(payload as object) }));
    if (msg?.method === 'skills/list' && skillsFailing)
      return rpc({ error: { code: -32603, message: 'skills are broken today' } });
    if (msg?.method === 'resources/read' && tampered !== undefined)
      return rpc({ result: { contents: [{ uri: msg.params?.uri, mimeType: 'text/markdown', text: tampered }] } });
    if (msg?.method === 'resources/read' && smuggled !== undefined) {
      const text = files[String(msg.params?.uri).slice('skill://'.length)];
      return rpc({ result: { contents: [{ uri: msg.params?.uri, mimeType: 'text/markdown', text }, smuggled] } });
    }
    await relay(req, res, raw, serve);
  });
  return {
    url: `${url}/mcp`,
    files,
    calls,
    reload: async () => {
      await catalog.reload();
      // Announced even when only a file's bytes changed (the SDK announces name/description changes itself).
      if (handler) handler.notify.resourcesChanged();
      else
        await Promise.all(
          [...sessions.values()].map((t) =>
            t.send({ jsonrpc: '2.0', method: 'notifications/resources/list_changed' }).catch(() => undefined),
          ),
        );
    },
    setSkillsFailing: (on) => void (skillsFailing = on),
    setTampered: (text) => void (tampered = text),
    setSmuggled: (item) => void (smuggled = item),
    close: async () => {
      await handler?.close();
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      await stop(http);
    },
  };
}

/** SDK v1 HTTP+SSE (2024-11-05): GET /sse, POST /messages?sessionId=. */
/**
 * `dropOn`: a prompts/get of that name ends the stream instead of answering (an upstream restarting
 * mid-call). `refuse`: a prompts/get of that name is refused with HTTP 400 (a request the upstream
 * will not take). `slow`: a prompts/get of that name is answered after 300 ms.
 */
export async function sseServer(
  names: string[],
  opts: { dropOn?: string; hold?: string; refuse?: string; slow?: string } = {},
): Promise<Running & { held: HeldGet[] }> {
  const transports = new Map<string, SSEServerTransport>();
  const held: HeldGet[] = [];
  const { http, url } = await listen(async (req, res) => {
    if (req.method === 'GET') {
      const t = new SSEServerTransport('/messages', res);
      transports.set(t.sessionId, t);
      const server = new Server({ name: 'sse-upstream', version: '0.1.0' }, { capabilities: { prompts: {} } });
      server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: names.map((name) => ({ name })) }));
      server.setRequestHandler(GetPromptRequestSchema, async (r, extra) => {
        // Answered only once cancelled: the reason of the `notifications/cancelled` is recorded.
        if (opts.hold !== undefined && r.params.name === opts.hold) {
          const get: HeldGet = { id: extra.requestId, closed: false };
          held.push(get);
          return new Promise<{ messages: [] }>((done) =>
            extra.signal.addEventListener('abort', () => done({ messages: [] }), { once: true }),
          ).finally(() => (get.cancelled = extra.signal.reason));
        }
        if (r.params.name === opts.dropOn) {
          setTimeout(() => void t.close(), 50);
          return new Promise<never>(() => {});
        }
        if (r.params.name === opts.slow) await new Promise((done) => setTimeout(done, 300));
        return { messages: [{ role: 'user', content: { type: 'text', text: `sse ${r.params.name}` } }] };
      });
      await server.connect(t);
      return;
    }
    if (req.url === '/sse') {
      res.writeHead(405).end();
      return;
    }
    const t = transports.get(new URL(req.url!, 'http://x').searchParams.get('sessionId') ?? '');
    if (!t) return void res.writeHead(404).end();
    const msg = JSON.parse(await body(req)) as { params?: { name?: unknown } };
    if (opts.refuse !== undefined && msg.params?.name === opts.refuse) return void res.writeHead(400).end('refused');
    await t.handlePostMessage(req, res, msg);
  });
  return { url: `${url}/sse`, close: () => stop(http), held };
}

/**
 * A hand-written legacy server that refuses every request until it has
 * processed `notifications/initialized`, and takes `delayMs` to process it:
 * the strictest reading of the lifecycle (some SDKs enforce it).
 */
export async function strictLegacyServer(
  names: string[],
  delayMs = 150,
): Promise<Running & { refused: () => number; gets: () => number }> {
  let initialized = false;
  let refused = 0;
  let gets = 0;
  const { http, url } = await listen(async (req, res) => {
    // A GET (the change stream) is refused below with a 400: it offers none.
    if (req.method === 'GET') gets += 1;
    const msg = JSON.parse((await body(req)) || 'null');
    const reply = (status: number, payload?: unknown, headers: Record<string, string> = {}) =>
      void res
        .writeHead(status, { 'content-type': 'application/json', ...headers })
        .end(payload === undefined ? undefined : JSON.stringify(payload));
    if (req.method !== 'POST' || msg?.params?._meta?.['io.modelcontextprotocol/protocolVersion'])
      return reply(400, {
        jsonrpc: '2.0',
        id: msg?.id ?? null,
        error: { code: -32000, message: 'Bad Request: no session' },
      });
    if (msg.method === 'initialize')
      return reply(200, initializeReply(msg.id, 'strict'), { 'mcp-session-id': 'strict-1' });
    if (msg.method === 'notifications/initialized') {
      await new Promise((r) => setTimeout(r, delayMs));
      initialized = true;
      return reply(202);
    }
    if (!initialized) {
      refused += 1;
      return reply(200, {
        jsonrpc: '2.0',
        id: msg.id,
        error: { code: -32600, message: 'Received request before initialization was complete' },
      });
    }
    if (msg.method === 'prompts/list')
      return reply(200, { jsonrpc: '2.0', id: msg.id, result: { prompts: names.map((name) => ({ name })) } });
    return reply(200, { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
  });
  return { url: `${url}/mcp`, refused: () => refused, gets: () => gets, close: () => stop(http) };
}

export type Fault = 'hang' | 'error500' | 'garbage' | 'cut' | 'slowsse' | 'refuses';

export async function faultyServer(fault: Fault): Promise<Running> {
  const { http, url } = await listen(async (req, res) => {
    const raw = await body(req);
    if (fault === 'hang') return; // never answers
    if (fault === 'refuses') {
      // Answers every request (initialize included) with a JSON-RPC error, as an upgraded server refuses our revision.
      const msg = JSON.parse(raw || '{}') as { id?: unknown };
      if (msg.id === undefined) return void res.writeHead(202).end();
      const error = { code: -32602, message: 'Unsupported protocol version', data: { supported: ['2099-01-01'] } };
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error }));
    }
    if (fault === 'error500') return void res.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
    if (fault === 'garbage')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc": "2.0", "res');
    if (fault === 'slowsse') {
      // Headers and a priming event at once, then nothing for a long time: the reply never comes in time.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('id: 1\ndata:\n\n');
      setTimeout(() => res.end(), 10_000).unref();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('id: 1\ndata:\n\n');
    res.destroy();
  });
  return { url: `${url}/mcp`, close: () => stop(http) };
}

/** @modelcontextprotocol/server-everything in streamableHttp mode, as a child process. */
export async function everything(): Promise<Running> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [join(PROJECT_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'streamableHttp'],
    {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stderr.on('data', (d) => (out += d));
  child.stdout.on('data', (d) => (out += d));
  const deadline = Date.now() + 20_000;
  while (!/listening on port/i.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`server-everything did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 100));
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

/** Starts upstreams for one test file and closes every one of them after it. */
export function closedAfterAll(): <T extends Running>(p: Promise<T>) => Promise<T> {
  const running: Running[] = [];
  afterAll(async () => {
    await Promise.all(running.map((s) => s.close()));
  });
  return async (p) => {
    const s = await p;
    running.push(s);
    return s;
  };
}
