/**
 * The upstream of the cancellation tests in workerd (cancel-legacy, cancel-modern): a real SDK v2
 * server with two prompts, `slow` (which the tests' handlers hold until their request is aborted)
 * and `quick`. Made per request, so nothing of it crosses from one request's context to another's.
 */
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll } from 'vitest';
import { FIXTURE_PROMPTS } from './fixtures.js';
import { mountInIsolate } from './in-isolate-upstream.js';
import { publish } from './worker.js';

export const heldPromptServer = (req: Request): Promise<Response> =>
  createMcpHandler(() => {
    const server = new McpServer({ name: 'held-upstream', version: '1.0.0' });
    for (const name of ['slow', 'quick'])
      server.registerPrompt(name, { description: name }, () => ({
        messages: [{ role: 'user', content: { type: 'text', text: name } }],
      }));
    return server;
  }).fetch(req);

/** For a file's tests: one local prompt published, then `upstream` mounted in this isolate as `held`. */
export function useHeldUpstream(upstream: (req: Request) => Promise<Response>): void {
  let unmount: () => Promise<void>;
  beforeAll(async () => {
    await publish(FIXTURE_PROMPTS.slice(0, 1));
    unmount = await mountInIsolate('held.example', upstream, { id: 'held', prefix: 'held', timeout: 30_000 });
  });
  afterAll(() => unmount());
}
