/**
 * A caller's cancel of an upstream call (the Deadline's `cancel`, which a downstream client's cancel
 * sets: docs/upstreams.md, "Cancellation") against a real SDK v1 session-era upstream whose prompt
 * `slow` answers only once cancelled: the upstream request's stream is closed, the upstream gets
 * `notifications/cancelled` naming its own request id, the call ends as `cancelled` (not a timeout),
 * and the session goes on serving the next call. An HTTP+SSE (2024-11-05) upstream is told the same
 * at its endpoint.
 */
import { expect, it } from 'vitest';
import { UpstreamClient, UpstreamError } from '../../src/catalog/upstreams/client.js';
import { deadline } from '../../src/catalog/upstreams/deadline.js';
import { closedAfterAll, legacyServer, sseServer, type HeldGet } from '../helpers/upstreams.js';

const started = closedAfterAll();

async function soon(check: () => boolean): Promise<void> {
  for (let i = 0; i < 250 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
}

/**
 * A client of `server` whose get of `slow` is held upstream, then cancelled by its caller: the
 * error it ended with, how long after the cancel, and the upstream's record of the held get.
 */
async function cancelHeld(server: { url: string; held: HeldGet[] }) {
  const c = new UpstreamClient({
    url: new URL(server.url),
    headers: {},
    timeoutMs: 30_000,
    clientInfo: { name: 'promptgate-test', version: '1' },
  });
  const ctl = new AbortController();
  const call = c.request('prompts/get', { name: 'slow' }, deadline(30_000, ctl.signal));
  call.catch(() => undefined);
  await soon(() => server.held.length === 1);
  const held = server.held[0]!;
  expect(held.cancelled).toBeUndefined();
  const t0 = Date.now();
  ctl.abort();
  const error = await call.then(
    () => undefined,
    (err: unknown) => err,
  );
  return { c, error, ms: Date.now() - t0, held };
}

const REASON = 'the request was cancelled by its client';

it('a cancelled call closes its upstream request and cancels it in the session, which goes on', async () => {
  const server = await started(
    legacyServer(
      [
        { name: 'slow', text: 'never' },
        { name: 'alpha', text: 'alpha' },
      ],
      2,
      { hold: 'slow' },
    ),
  );
  const { c, error, ms, held } = await cancelHeld(server);
  expect(ms, 'the call ends at the cancel, not at its timeout').toBeLessThan(5_000);
  expect(error).toBeInstanceOf(UpstreamError);
  expect((error as UpstreamError).kind).toBe('cancelled');
  await soon(() => held.closed && held.cancelled !== undefined);
  expect(held.closed, 'the upstream request was closed').toBe(true);
  expect(held.cancelled, 'notifications/cancelled named the upstream request id').toBe(REASON);
  // The session (handshake shared by every call) is untouched: the next call on it is answered.
  const got = await c.request('prompts/get', { name: 'alpha' });
  expect((got.messages as unknown[]).length).toBe(1);
  expect(server.sessions()).toBe(1);
  await c.close();
});

it('a cancelled call on an HTTP+SSE upstream is cancelled at its endpoint, and the link goes on', async () => {
  const { c, error, held } = await cancelHeld(await started(sseServer(['alpha'], { hold: 'slow' })));
  expect((error as UpstreamError).kind).toBe('cancelled');
  await soon(() => held.cancelled !== undefined);
  expect(held.cancelled, 'notifications/cancelled named the upstream request id').toBe(REASON);
  const got = await c.request('prompts/get', { name: 'alpha' });
  expect((got.messages as unknown[]).length).toBe(1);
  await c.close();
});
