/**
 * An upstream MCP server for the conformance run through the aggregator
 * (Node only): the official SDK v2 (`McpServer` + `createMcpHandler`, both
 * eras) serving the conformance fixture prompts from the same prompt files
 * the direct run publishes, plus `test_input_required_result_prompt`, which
 * answers `input_required` (an elicitation, with HMAC-signed requestState)
 * until the retry brings the input, as the conformance scenario
 * `input-required-result-non-tool-request` expects; and the fixture skills
 * (the folders with a SKILL.md in `skillsDir`) with the SDK's own Skills
 * extension (`@modelcontextprotocol/server/ext/skills`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { body, listen, relay, stop } from './http-server.js';
import {
  acceptedContent,
  completable,
  createMcpHandler,
  createRequestStateCodec,
  inputRequired,
  McpServer,
} from '@modelcontextprotocol/server';
import { SkillCatalog, memorySkillFiles } from '@modelcontextprotocol/server/ext/skills';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as z from 'zod';
import { loadValidDir } from '../../cli/fs-source.js';
import type { PromptRecord } from '../../src/catalog/types.js';

export const INPUT_REQUIRED_PROMPT = 'test_input_required_result_prompt';

/** The record's messages with every {{argument}} replaced (the gateway's own template semantics for these fixtures). */
function render(record: PromptRecord, args: Record<string, string | undefined>) {
  const json = JSON.stringify(record.messages).replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (_m, k: string) =>
    JSON.stringify(args[k] ?? '').slice(1, -1),
  );
  return JSON.parse(json) as PromptRecord['messages'];
}

function register(server: McpServer, record: PromptRecord): void {
  const args = record.arguments ?? [];
  const meta = { description: record.description };
  const messages = (a: Record<string, string | undefined>) => ({ messages: render(record, a) as never });
  if (args.length === 0) server.registerPrompt(record.name, meta, () => messages({}));
  else {
    // Declared `values` complete as the gateway's own completion does: by prefix.
    const field = (values: string[] | undefined) =>
      values ? completable(z.string(), (v: string) => values.filter((x) => x.startsWith(v))) : z.string();
    const shape = Object.fromEntries(
      args.map((a) => [a.name, a.required ? field(a.values) : field(a.values).optional()]),
    );
    server.registerPrompt(
      record.name,
      { ...meta, argsSchema: z.object(shape) },
      (a: Record<string, string | undefined>) => messages(a),
    );
  }
}

/** Every file of every skill folder (a folder with a SKILL.md) of `dir`, keyed by its path under `dir`. */
function skillFiles(dir: string): Record<string, Uint8Array> {
  const files: Record<string, Uint8Array> = {};
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }))
      if (e.isDirectory()) walk(join(d, e.name));
      else files[relative(dir, join(d, e.name)).split('\\').join('/')] = new Uint8Array(readFileSync(join(d, e.name)));
  };
  for (const e of readdirSync(dir, { withFileTypes: true }))
    if (e.isDirectory() && existsSync(join(dir, e.name, 'SKILL.md'))) walk(join(dir, e.name));
  return files;
}

export async function conformanceUpstream(
  promptsDir: string,
  skillsDir?: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const { records } = loadValidDir(promptsDir);
  const skills = skillsDir && (await SkillCatalog.load(memorySkillFiles(skillFiles(skillsDir)), { strict: true }));
  const codec = createRequestStateCodec<{ round: number }>({
    key: 'conformance-upstream-request-state-key-0123456789',
  });
  const contextSchema = z.object({ context: z.string() });
  const handler = createMcpHandler(() => {
    const server = new McpServer(
      { name: 'conformance-upstream', version: '1.0.0' },
      { requestState: { verify: codec.verify.bind(codec) } },
    );
    for (const r of records) register(server, r);
    if (skills) skills.attach(server);
    server.registerPrompt(
      INPUT_REQUIRED_PROMPT,
      { description: 'Needs context from the user (multi-round-trip, 2026-07-28)' },
      async (ctx) => {
        const given = acceptedContent(ctx.mcpReq.inputResponses, 'user_context', contextSchema);
        if (!given)
          return inputRequired({
            inputRequests: {
              user_context: inputRequired.elicit({
                message: 'What context should the prompt use?',
                requestedSchema: contextSchema,
              }),
            },
            requestState: await codec.mint({ round: 1 }),
          });
        return { messages: [{ role: 'user', content: { type: 'text', text: `Use this context: ${given.context}` } }] };
      },
    );
    return server;
  });
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = req.method === 'POST' ? await body(req) : undefined;
    await relay(req, res, raw, (r) => handler.fetch(r));
  };
  // A request that fails surfaces as an unhandled rejection, which vitest reports as an error (http-server.ts).
  const { http, url } = await listen(serve);
  return {
    url: `${url}/mcp`,
    close: async () => {
      await handler.close();
      await stop(http);
    },
  };
}
