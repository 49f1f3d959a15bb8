/**
 * The upstream of the cancellation tests in workerd (cancel-legacy, cancel-modern): a real SDK v2
 * server with two prompts, `slow` (which the tests' handlers hold until their request is aborted)
 * and `quick`. Made per request, so nothing of it crosses from one request's context to another's.
 */
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';

export const heldPromptServer = (req: Request): Promise<Response> =>
  createMcpHandler(() => {
    const server = new McpServer({ name: 'held-upstream', version: '1.0.0' });
    for (const name of ['slow', 'quick'])
      server.registerPrompt(name, { description: name }, () => ({
        messages: [{ role: 'user', content: { type: 'text', text: name } }],
      }));
    return server;
  }).fetch(req);
