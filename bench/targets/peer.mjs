/**
 * The PEER: the official MCP TypeScript SDK's `McpServer` on Node, in
 * stateless mode, serving the same 20 prompts as the gateway.
 *
 * Follows the SDK's stateless example (examples/server/simpleStatelessStreamableHttp):
 * a fresh McpServer + StreamableHTTPServerTransport per request, with
 * `sessionIdGenerator: undefined`, here with `enableJsonResponse: true` so it
 * answers plain JSON like the gateway, on bare node:http instead of Express.
 * Prompts are registered with `registerPrompt` and a zod argsSchema.
 *
 * Run by run.mjs (lib/start-target.mjs) as a child process: prints `{"port":N}` on stdout once
 * listening on 127.0.0.1 (PORT env, default 0 = any free port). With `--tools` (bench:tools) it
 * also registers each prompt as a tool (`registerTool`, the same zod schema), the SDK's
 * counterpart of the gateway's tools mirror.
 */
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { PROMPTS, render } from '../lib/prompts.mjs';

const TOOLS = process.argv.includes('--tools');

function getServer() {
  const server = new McpServer({ name: 'sdk-peer', version: '1.0.0' });
  for (const p of PROMPTS) {
    const argsSchema = {};
    for (const a of p.arguments) {
      // describe() last: in zod 4, .optional() returns a new schema without the description.
      argsSchema[a.name] = (a.required ? z.string() : z.string().optional()).describe(a.description);
    }
    const rendered = (args) =>
      p.messages.map((m) => ({ role: m.role, content: { type: 'text', text: render(m.content.text, args) } }));
    server.registerPrompt(p.name, { title: p.title, description: p.description, argsSchema }, async (args) => ({
      description: p.description,
      messages: rendered(args),
    }));
    if (TOOLS)
      server.registerTool(
        p.name,
        { title: p.title, description: p.description, inputSchema: argsSchema, annotations: { readOnlyHint: true } },
        async (args) => ({ content: rendered(args).map((m) => m.content) }),
      );
  }
  return server;
}

function fail(res, status, message) {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message }, id: null }));
}

const httpServer = http.createServer(async (req, res) => {
  if (req.method !== 'POST' || !req.url?.startsWith('/mcp')) return fail(res, 405, 'Method not allowed.');
  let body;
  try {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return fail(res, 400, 'Parse error');
  }
  const server = getServer();
  try {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  } catch (e) {
    console.error('peer: error handling MCP request:', e);
    fail(res, 500, 'Internal server error');
  }
});

httpServer.keepAliveTimeout = 65_000;
httpServer.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: httpServer.address().port })}\n`);
});

// Stop with the parent: on a signal, or when the parent's stdin pipe closes.
const stop = () => process.exit(0);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
