/**
 * A listen whose upstream never answers (listen.ts): the wait for the change stream's headers is
 * bounded by the upstream's timeout, in either era, so the follow loop (follow.ts) tries again and
 * re-lists instead of waiting forever on a request that will never be answered.
 */
import { describe, expect, it } from 'vitest';
import { UpstreamClient } from '../../src/catalog/upstreams/client.js';
import { closedAfterAll, legacyServer, modernServer } from '../helpers/upstreams.js';

const started = closedAfterAll();
const TIMEOUT_MS = 400;

/** A client whose listen request (modern POST or legacy GET) is held without an answer until it is aborted. */
function unanswered(url: string): UpstreamClient {
  return new UpstreamClient({
    url: new URL(url),
    headers: {},
    timeoutMs: TIMEOUT_MS,
    clientInfo: { name: 'promptgate-test', version: '1' },
    fetch: (input, init) => {
      const listening = init?.method === 'GET' || String(init?.body ?? '').includes('"subscriptions/listen"');
      if (!listening) return fetch(input, init);
      return new Promise<Response>((_, reject) => {
        const signal = init?.signal;
        signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      });
    },
  });
}

describe('a listen the upstream never answers', () => {
  for (const era of ['modern', 'legacy'] as const) {
    it(`ends within the upstream's timeout (${era})`, async () => {
      const server = await started(
        era === 'modern' ? modernServer(['plan']) : legacyServer([{ name: 'plan', text: 'plan' }]),
      );
      const c = unanswered(server.url);
      await c.listPrompts();
      expect(c.era).toBe(era);
      const t0 = Date.now();
      const outcome = c.listen(() => undefined, new AbortController().signal);
      await expect(outcome).rejects.toThrow(new RegExp(`timed out opening its change stream \\(${TIMEOUT_MS} ms\\)`));
      expect(Date.now() - t0).toBeLessThan(TIMEOUT_MS + 1_500);
      await c.close();
    });
  }
});
