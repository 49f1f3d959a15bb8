/**
 * The upstream client's guards against a hostile or broken upstream, with
 * real servers on 127.0.0.1: no redirect is followed (and configured
 * headers never reach another origin), replies are read with a byte cap,
 * and one deadline covers a whole operation, handshake included.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { UpstreamClient, UpstreamError } from '../../src/catalog/upstreams/client.js';
import { canaryServer, scriptedServer, type Scripted } from '../helpers/fault-servers.js';

const clientInfo = { name: 'promptgate-test', version: '1' };
const running: Scripted[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.close()));
});
async function up<T extends Scripted>(p: Promise<T>): Promise<T> {
  const s = await p;
  running.push(s);
  return s;
}
const client = (url: string, timeoutMs: number, headers: Record<string, string> = {}) =>
  new UpstreamClient({ url: new URL(url), headers, timeoutMs, clientInfo });

describe('redirects', () => {
  it('a redirect on the first contact is refused: nothing reaches the target, no configured header leaves the origin', async () => {
    const canary = await up(canaryServer());
    const server = await up(scriptedServer({ all: 'redirect', redirectTo: canary.url }));
    const err = await client(server.url, 2000, { authorization: 'Bearer secret', 'x-api-key': 'k-123' })
      .listPrompts()
      .catch((e) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(canary.seen).toEqual([]);
    expect(err.fault).toBe('redirect_refused');
  });
  it('a redirect of one request in an established session is refused too', async () => {
    const canary = await up(canaryServer());
    const server = await up(scriptedServer({ prompts: [{ name: 'a' }], list: 'redirect', redirectTo: canary.url }));
    const err = await client(server.url, 2000, { 'x-api-key': 'k-123' })
      .listPrompts()
      .catch((e) => e);
    expect(canary.seen).toEqual([]);
    expect(err.fault).toBe('redirect_refused');
    // The upstream itself did get the configured header (it is its own origin).
    expect(server.seen.some((r) => r.headers['x-api-key'] === 'k-123')).toBe(true);
  });
});

describe('byte cap', () => {
  for (const list of ['huge', 'endless', 'endless_sse'] as const) {
    it(`${list}: the reply is refused past the cap, long before the timeout, and the body is cancelled`, async () => {
      const server = await up(scriptedServer({ list }));
      const err = await client(server.url, 20_000)
        .listPrompts()
        .catch((e) => e);
      expect(err).toBeInstanceOf(UpstreamError);
      expect(err.fault).toBe('too_large');
      // The server stops writing soon after the cap (4 MiB), give or take what the socket buffers held.
      await new Promise((r) => setTimeout(r, 200));
      const after = server.bytesSent();
      await new Promise((r) => setTimeout(r, 300));
      expect(server.bytesSent() - after).toBeLessThan(1_000_000);
      expect(server.bytesSent()).toBeLessThan(40_000_000);
    });
  }
});

describe('one deadline per operation', () => {
  it('a slow handshake and a hanging list take the timeout, not the timeout plus the handshake', async () => {
    const server = await up(scriptedServer({ initDelayMs: 900, list: 'hang' }));
    const t0 = performance.now();
    const err = await client(server.url, 1000)
      .listPrompts()
      .catch((e) => e);
    const took = performance.now() - t0;
    // The old per-request timeouts took 900 + 1000 ms; one deadline ends at 1000 ms (margin for a loaded machine).
    expect(took).toBeGreaterThanOrEqual(990);
    expect(took).toBeLessThan(1500);
    expect(err.fault).toBe('timeout');
  });
});
