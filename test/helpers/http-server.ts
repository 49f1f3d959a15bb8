/**
 * Plain Node HTTP servers on a free loopback port, for the test upstreams
 * (upstreams.ts, fault-servers.ts): start, read a body, stop at once.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>,
): Promise<{ http: HttpServer; url: string }> {
  // A handler that fails surfaces as an unhandled rejection, which vitest reports as an error.
  const http = createServer((req, res) => void handler(req, res));
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
