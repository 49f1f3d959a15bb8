/**
 * Plain Node HTTP servers on a free loopback port, for the test upstreams
 * (upstreams.ts, fault-servers.ts): start, read a body, stop at once.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>,
): Promise<{ http: HttpServer; url: string }> {
  // A handler that fails surfaces as an unhandled rejection, which vitest reports as an error. A client
  // that goes away mid-request (the gateway cancelling a call, a test stopping the server) is not a
  // handler failure: Node ends the request with ECONNRESET "aborted", and a real server shrugs it off.
  const http = createServer((req, res) => {
    (async () => handler(req, res))().catch((e: unknown) => {
      if (req.destroyed && (e as { code?: unknown } | null)?.code === 'ECONNRESET') return;
      throw e;
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return { http, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}` };
}

/** Closes the server and every connection still open (a hanging upstream's too). */
export function stop(http: HttpServer): Promise<void> {
  http.closeAllConnections();
  return new Promise((r) => http.close(() => r()));
}

export async function body(req: IncomingMessage): Promise<string> {
  let s = '';
  for await (const chunk of req) s += chunk;
  return s;
}

/** Serves one Node request with a Web-standard handler (the SDK 2.x servers), streaming its answer back. */
export async function relay(
  req: IncomingMessage,
  res: ServerResponse,
  raw: string | undefined,
  serve: (r: Request) => Promise<Response>,
): Promise<void> {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  const response = await serve(new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body: raw }));
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
  res.end();
}

/** A hand-written 2025-11-25 prompts server's answer to `initialize` (`name` tells the servers apart). */
export const initializeReply = (id: unknown, name: string) => ({
  jsonrpc: '2.0',
  id,
  result: { protocolVersion: '2025-11-25', capabilities: { prompts: {} }, serverInfo: { name, version: '1' } },
});
