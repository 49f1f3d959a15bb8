/**
 * Scripted upstream servers for fault tests (Node only, 127.0.0.1 only): a
 * hand-written legacy Streamable HTTP server (no modern era, no sessions)
 * whose handshake, listing and get can each be told to misbehave, and a
 * canary that only counts what reaches it (the stand-in for an address the
 * gateway must never be sent to). Each records the requests it saw, so a
 * test can prove what did and did not arrive.
 */
import type { Server as HttpServer } from 'node:http';
import { body, initializeReply, listen, stop } from './http-server.js';

export type Behaviour =
  | 'ok'
  | 'hang'
  | 'error500'
  | 'garbage'
  | 'cut'
  | 'huge'
  | 'endless'
  | 'endless_sse'
  | 'slowsse'
  | 'redirect'
  | 'bigerror';

export interface SeenRequest {
  method: string;
  rpc?: string;
  /** The prompt a get or complete asked for. */
  name?: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface Scripted {
  url: string;
  seen: SeenRequest[];
  /** Bytes written by `huge`/`endless` answers before the client went away. */
  bytesSent: () => number;
  /** TCP connections accepted so far, and those still open. */
  connections: () => { total: number; open: number };
  close(): Promise<void>;
}

export interface ScriptOptions {
  prompts?: Record<string, unknown>[];
  list?: Behaviour;
  get?: Behaviour;
  /** What a healthy prompts/get answers (the `result`). */
  getResult?: (name: string) => Record<string, unknown>;
  /** An HTTP status prompts/get answers instead, for some names (an upstream refusing a request it finds too large). */
  getStatus?: (name: string) => number | undefined;
  /** The body of those answers: plain text unless set (then JSON, as some servers send their errors). */
  getStatusBody?: unknown;
  /** prompts/get answers names it never listed too (an upstream that matches loosely or makes prompts up). */
  getAnyName?: boolean;
  /** A JSON-RPC error prompts/get answers instead, for some names. */
  getError?: (name: string) => { code: number; message: string } | undefined;
  /** The `completion` completion/complete answers for a prompt and the value typed, when set (default: values one and two); it may take its time. */
  completion?: (name: string, value: string) => Record<string, unknown> | undefined | Promise<Record<string, unknown>>;
  /** A JSON-RPC error completion/complete answers instead, for some prompts. */
  completeError?: (name: string) => { code: number; message: string } | undefined;
  /** An HTTP status completion/complete answers instead, while it returns one (an upstream failing for a moment). */
  completeStatus?: () => number | undefined;
  /** Delay before the initialize reply (a slow handshake). */
  initDelayMs?: number;
  /** Where `redirect` answers point. */
  redirectTo?: string;
  /** Answer every request (initialize too) with this behaviour. */
  all?: Behaviour;
}

function countConnections(http: HttpServer): () => { total: number; open: number } {
  let total = 0;
  let open = 0;
  http.on('connection', (socket) => {
    total++;
    open++;
    socket.once('close', () => open--);
  });
  return () => ({ total, open });
}

/** One fake prompt of about 450 bytes, like the 100,000-prompt listing of the issue. */
const bulky = (i: number) =>
  JSON.stringify({ name: `p${i}`, description: 'x'.repeat(400), arguments: [{ name: 'a', required: false }] });

export async function scriptedServer(opts: ScriptOptions = {}): Promise<Scripted> {
  const seen: SeenRequest[] = [];
  let sent = 0;
  const timers = new Set<ReturnType<typeof setInterval>>();
  const { http, url } = await listen(async (req, res) => {
    const raw = await body(req);
    let msg: { id?: unknown; method?: string; params?: Record<string, unknown> } | null = null;
    try {
      msg = JSON.parse(raw || 'null');
    } catch {
      // not JSON: answered as a bad request below
    }
    const p = msg?.params as { name?: unknown; ref?: { name?: unknown } } | undefined;
    const asked = p?.name ?? p?.ref?.name;
    seen.push({
      method: req.method ?? '',
      rpc: msg?.method,
      ...(typeof asked === 'string' ? { name: asked } : {}),
      headers: req.headers,
    });
    const json = (status: number, payload?: unknown) =>
      void res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(payload === undefined ? undefined : JSON.stringify(payload));
    const act = (b: Behaviour, ok: () => void) => {
      switch (b) {
        case 'ok':
          return ok();
        case 'hang':
          return;
        case 'error500':
          return void res.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
        case 'bigerror':
          // A JSON-RPC error whose message is 3 MB: under the reply cap, over a storage row's 2 MB.
          return json(200, { jsonrpc: '2.0', id: msg?.id, error: { code: -32000, message: 'x'.repeat(3_000_000) } });
        case 'garbage':
          return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc": "2.0", "res');
        case 'cut':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"jsonrpc":"2.0","id":');
          return void setTimeout(() => res.destroy(), 20);
        case 'redirect':
          return void res
            .writeHead(302, { location: opts.redirectTo ?? 'http://127.0.0.1:9/', 'content-type': 'text/plain' })
            .end('moved');
        case 'slowsse': {
          // A valid reply, one byte a second: it can never arrive within any sane timeout.
          const text = `data: ${JSON.stringify({ jsonrpc: '2.0', id: msg?.id, result: { prompts: [] } })}\n\n`;
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          let i = 0;
          const t = setInterval(() => {
            if (i >= text.length || res.destroyed) return void (clearInterval(t), res.end());
            res.write(text[i++]);
          }, 1000);
          timers.add(t);
          return;
        }
        case 'huge': {
          // 100,000 prompts (about 45 MB), written as fast as the client reads.
          res.writeHead(200, { 'content-type': 'application/json' });
          let i = 0;
          const head = `{"jsonrpc":"2.0","id":${JSON.stringify(msg?.id)},"result":{"prompts":[`;
          // Written in 64 KB pieces, as a real server's buffered writer would.
          const pump = () => {
            while (i < 100_000) {
              let chunk = '';
              while (i < 100_000 && chunk.length < 65_536) chunk += (i === 0 ? head : ',') + bulky(i++);
              sent += chunk.length;
              if (!res.write(chunk)) return void res.once('drain', pump);
            }
            res.end(']}}');
          };
          res.on('close', () => (i = 100_000));
          return pump();
        }
        case 'endless':
        case 'endless_sse': {
          // Never ends: a JSON array (or one SSE event) that grows for as long as anyone reads.
          const sse = b === 'endless_sse';
          res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json' });
          res.write(
            sse
              ? `data: {"jsonrpc":"2.0","id":${JSON.stringify(msg?.id)},"result":{"prompts":[`
              : `{"jsonrpc":"2.0","id":${JSON.stringify(msg?.id)},"result":{"prompts":[`,
          );
          let open = true;
          res.on('close', () => (open = false));
          const chunk = `${bulky(0)},`.repeat(100);
          const pump = () => {
            while (open) {
              sent += chunk.length;
              if (!res.write(chunk)) return void res.once('drain', pump);
            }
          };
          return pump();
        }
      }
    };
    if (opts.all && opts.all !== 'ok') return act(opts.all, () => undefined);
    if (
      req.method !== 'POST' ||
      !msg ||
      (msg.params?._meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/protocolVersion']
    )
      return json(400, {
        jsonrpc: '2.0',
        id: msg?.id ?? null,
        error: { code: -32000, message: 'Bad Request: legacy only' },
      });
    if (msg.method === 'initialize') {
      if (opts.initDelayMs) await new Promise((r) => setTimeout(r, opts.initDelayMs));
      return json(200, initializeReply(msg.id, 'scripted'));
    }
    if (msg.id === undefined) return json(202);
    if (msg.method === 'prompts/list')
      return act(opts.list ?? 'ok', () =>
        json(200, { jsonrpc: '2.0', id: msg.id, result: { prompts: opts.prompts ?? [] } }),
      );
    if (msg.method === 'prompts/get') {
      const name = String(msg.params?.name);
      return act(opts.get ?? 'ok', () => {
        const status = opts.getStatus?.(name);
        if (status && opts.getStatusBody !== undefined) return json(status, opts.getStatusBody);
        if (status) return void res.writeHead(status, { 'content-type': 'text/plain' }).end('refused');
        const err = opts.getError?.(name);
        if (err) return json(200, { jsonrpc: '2.0', id: msg.id, error: err });
        if (!opts.getAnyName && !(opts.prompts ?? []).some((p) => p.name === name))
          return json(200, {
            jsonrpc: '2.0',
            id: msg.id,
            error: { code: -32602, message: `Prompt ${name} not found` },
          });
        json(200, {
          jsonrpc: '2.0',
          id: msg.id,
          result: opts.getResult?.(name) ?? {
            messages: [{ role: 'user', content: { type: 'text', text: `scripted ${name}` } }],
          },
        });
      });
    }
    if (msg.method === 'completion/complete') {
      const status = opts.completeStatus?.();
      if (status) return void res.writeHead(status, { 'content-type': 'text/plain' }).end('failing');
      const name = String((msg.params?.ref as { name?: unknown } | undefined)?.name);
      const error = opts.completeError?.(name);
      if (error) return json(200, { jsonrpc: '2.0', id: msg.id, error });
      const value = String((msg.params?.argument as { value?: unknown } | undefined)?.value ?? '');
      const completion = (await opts.completion?.(name, value)) ?? { values: ['one', 'two'] };
      return json(200, { jsonrpc: '2.0', id: msg.id, result: { completion } });
    }
    return json(200, { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
  });
  const connections = countConnections(http);
  return {
    url: `${url}/mcp`,
    seen,
    bytesSent: () => sent,
    connections,
    close: async () => {
      for (const t of timers) clearInterval(t);
      await stop(http);
    },
  };
}

/** Counts whatever reaches it and answers 200 with an empty JSON-RPC result: it must stay at 0. */
export async function canaryServer(): Promise<Scripted> {
  const seen: SeenRequest[] = [];
  const { http, url } = await listen(async (req, res) => {
    await body(req);
    seen.push({ method: req.method ?? '', headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{"prompts":[]}}');
  });
  return {
    url: `${url}/latest/meta-data`,
    seen,
    bytesSent: () => 0,
    connections: countConnections(http),
    close: () => stop(http),
  };
}
