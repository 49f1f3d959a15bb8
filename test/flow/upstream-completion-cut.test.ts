/**
 * An upstream completion cut to the 100 values a client may be sent says there is more, even when
 * the upstream said nothing of a total (spec: `hasMore` tells whether more values exist than were
 * returned). The upstream is a real SDK server in this isolate (test/helpers/in-isolate-upstream.ts)
 * whose completion answer is then stripped of its total and its hasMore, as a terser server sends it.
 */
import { completable, McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { mountInIsolate, sdkUpstream } from '../helpers/in-isolate-upstream.js';
import { openSession } from '../helpers/worker.js';

const VALUES = Array.from({ length: 150 }, (_, i) => `v${String(i).padStart(3, '0')}`);

const server = () => {
  const s = new McpServer({ name: 'terse', version: '1.0.0' });
  s.registerPrompt('pick', { argsSchema: z.object({ topic: completable(z.string(), () => VALUES) }) }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'picked' } }],
  }));
  return s;
};

/** The SDK server's answer, with the completion's `total` and `hasMore` taken out. */
const sdk = sdkUpstream(server);
async function upstream(req: Request): Promise<Response> {
  const res = await sdk(req);
  if (req.headers.get('mcp-method') !== 'completion/complete') return res;
  const reply = await res.json<{ result: { completion: Record<string, unknown> } }>();
  reply.result.completion = { values: VALUES };
  return Response.json(reply);
}

describe('an upstream completion of more than 100 values', () => {
  let unmount: () => Promise<void>;
  beforeAll(async () => {
    unmount = await mountInIsolate('terse.example', upstream, { id: 'terse', prefix: 'terse' });
  });
  afterAll(() => unmount());

  it('is cut to 100 and says hasMore, though the upstream gave no total', async () => {
    const s = await openSession();
    const r = await s.call('completion/complete', {
      ref: { type: 'ref/prompt', name: 'terse.pick' },
      argument: { name: 'topic', value: '' },
    });
    expect(r.body.error).toBeUndefined();
    expect(r.body.result.completion).toEqual({ values: VALUES.slice(0, 100), hasMore: true });
  });
});
