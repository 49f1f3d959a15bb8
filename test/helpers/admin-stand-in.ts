/**
 * A local stand-in for the admin API, for the CLI's request-order tests (a real HTTP server the
 * CLI's own client talks to). It records each request as `METHOD /path?query`, answers the routes
 * every push of a skill takes (every digest missing, each file stored), and leaves the rest to
 * the test's `answer`; a route `answer` does not take is a 404.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Reply = (status: number, body: unknown) => void;
/** Answers one request with `json`, or leaves it to the skill-file routes and the 404. */
export type Answer = (request: { method: string; url: string; body: string }, json: Reply) => void;

/** A diff with nothing in it, to spread a test's names into. */
export const EMPTY_DIFF = { added: [], changed: [], removed: [], unchanged: [] };

export async function adminStandIn(
  answer: Answer,
): Promise<{ readonly seen: string[]; readonly base: string; close: () => void }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const method = req.method!;
      const url = req.url!;
      const body = Buffer.concat(chunks).toString();
      seen.push(`${method} ${url}`);
      let answered = false;
      const json: Reply = (status, b) => {
        answered = true;
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(b));
      };
      answer({ method, url, body }, json);
      if (answered) return;
      if (url === '/admin/skills/files/missing')
        return json(200, { missing: (JSON.parse(body) as { digests: string[] }).digests });
      if (method === 'PUT' && url.startsWith('/admin/skills/files/')) return json(201, {});
      json(404, { error: { message: 'not here' } });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    seen,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => void server.close(),
  };
}
