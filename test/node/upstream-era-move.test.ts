/**
 * An upstream that moves to another transport at the same URL: the era the isolate remembers for the
 * URL fails, and is probed afresh, rather than failing every connection until the isolate is recycled.
 * A front server keeps the URL while the server behind it changes.
 */
import { describe, expect, it } from 'vitest';
import { UpstreamClient } from '../../src/catalog/upstreams/client.js';
import { body, listen, stop } from '../helpers/http-server.js';
import { closedAfterAll, legacyServer, modernServer, sseServer, type Running } from '../helpers/upstreams.js';

const started = closedAfterAll();
const client = (url: string) =>
  new UpstreamClient({ url: new URL(url), headers: {}, timeoutMs: 3000, clientInfo: { name: 't', version: '1' } });

/** `/mcp` on a port of its own, served by `backend` (its other paths too: the HTTP+SSE message endpoint). */
async function movable(backend: Running): Promise<Running & { moveTo(next: Running): void }> {
  const { http, url } = await listen(async (req, res) => {
    const raw = req.method === 'POST' ? await body(req) : undefined;
    const target = req.url === '/mcp' ? new URL(backend.url) : new URL(req.url!, backend.url);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers.set(k, v);
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    try {
      const r = await fetch(target, { method: req.method, headers, body: raw, signal: gone.signal });
      const out = Object.fromEntries(
        [...r.headers].filter(([k]) => !['content-length', 'transfer-encoding'].includes(k)),
      );
      res.writeHead(r.status, out);
      if (r.body) for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
      res.end();
    } catch {
      res.destroy(); // the client went away, or the backend did
    }
  });
  return { url: `${url}/mcp`, moveTo: (next) => void (backend = next), close: () => stop(http) };
}

describe('an upstream that moves transport at the same URL', () => {
  const moves: [string, () => Promise<Running>, string, string[]][] = [
    ['Streamable HTTP (sessions)', () => legacyServer([{ name: 'moved', text: 'moved' }]), 'legacy', ['moved']],
    ['2026-07-28', () => modernServer(['moved']), 'modern', ['moved']],
  ];
  for (const [to, next, era, names] of moves)
    it(`from HTTP+SSE to ${to}: the remembered era fails once, and the URL is probed afresh`, async () => {
      const front = await started(movable(await started(sseServer(['old_one']))));
      const before = client(front.url);
      expect((await before.listPrompts()).map((p) => p.name)).toEqual(['old_one']);
      expect(before.era).toBe('sse');
      await before.close();

      front.moveTo(await started(next()));
      const after = client(front.url);
      expect((await after.listPrompts()).map((p) => p.name)).toEqual(names);
      expect(after.era).toBe(era);
      await after.close();
    });
});
