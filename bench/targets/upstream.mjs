/**
 * An upstream MCP server for `npm run bench:aggregate`: `node bench/targets/upstream.mjs <index>`.
 * One SDK v1 low-level `Server`, sessionful legacy Streamable HTTP (SSE replies), on node:http,
 * AGG_UPSTREAM_DELAY_MS before every POST. Every request is logged (arrival, finish, on the
 * wall clock) and `GET /__log?from=N` returns the log. Prints {"port"} on stdout; exits when
 * its parent closes stdin.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { GetPromptRequestSchema, ListPromptsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { sleep } from '../lib/async.mjs';
import { DELAY_MS } from '../aggregate/settings.mjs';
import { upstreamPrompts } from '../aggregate/upstream-prompts.mjs';

/** Wall-clock ms with sub-ms precision, comparable across processes on this machine. */
const now = () => performance.timeOrigin + performance.now();

const index = Number(process.argv[2]);
const id = `up${index + 1}`;
const prompts = upstreamPrompts(index + 1);
const transports = new Map();
const requests = [];

function buildServer() {
  const server = new Server(
    { name: `bench-upstream-${id}`, version: '1.0.0' },
    { capabilities: { prompts: { listChanged: true } } },
  );
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts }));
  server.setRequestHandler(GetPromptRequestSchema, (req) => ({
    messages: [
      { role: 'user', content: { type: 'text', text: `${req.params.name}: ${req.params.arguments?.subject ?? ''}` } },
    ],
  }));
  return server;
}

async function handle(req, res) {
  if (req.url.startsWith('/__log')) {
    const from = Number(new URL(req.url, 'http://x').searchParams.get('from') ?? 0);
    const log = { count: requests.length, sessions: transports.size, requests: requests.slice(from) };
    return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(log));
  }
  const entry = { method: req.method, arrived: now(), finished: null };
  requests.push(entry);
  res.on('finish', () => (entry.finished = now()));
  try {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = raw ? JSON.parse(raw) : undefined;
    if (req.method === 'POST') entry.method = body?.method ?? 'reply';
    if (req.method === 'POST' && DELAY_MS) await sleep(DELAY_MS);
    const sid = req.headers['mcp-session-id'];
    let transport = sid ? transports.get(sid) : undefined;
    if (!transport) {
      if (sid)
        return void res
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"}}');
      const t = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (x) => void transports.set(x, t),
      });
      t.onclose = () => t.sessionId && transports.delete(t.sessionId);
      await buildServer().connect(t);
      transport = t;
    }
    await transport.handleRequest(req, res, body);
  } catch (e) {
    if (!res.headersSent) res.writeHead(500).end(String(e));
    else res.end();
  }
}

const server = createServer(handle);
server.listen(0, '127.0.0.1', () => {
  process.stdin.on('end', () => process.exit(0)).resume();
  process.on('SIGTERM', () => process.exit(0));
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
