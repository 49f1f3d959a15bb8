/**
 * tools/list and tools/call: the prompts mirrored as tools (docs/tools-mirror.md), for clients
 * that show no prompts. Served only with TOOLS_MIRROR on (dispatch.ts gates them). The list is
 * prompts/list's path with the mirror's list kind (catalog/tools.ts); a call renders through
 * prompts/get's own path (prompts.ts renderPrompt), so a tool's content is the prompt's.
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { LookupError } from '../../catalog/errors.js';
import { listing } from '../../catalog/listing.js';
import { mirroredEntry, RENDERED_PROMPT_META, toolsKind } from '../../catalog/tools.js';
import { isRecord } from '../../lib/json.js';
import type { CallFact } from '../../lib/record.js';
import type { CallContext } from '../context.js';
import type { Params, RawJson } from '../envelope.js';
import { invalidParams } from '../errors.js';
import { listResult, renderPrompt } from './prompts.js';
import { UpstreamInvalidParams } from './remote.js';
import { routeOf } from './route.js';
import { clip } from '../../lib/clip.js';

/** Synchronous when the page is already in this isolate, exactly as prompts/list. */
export function listTools(params: Params, ctx: CallContext): RawJson | Promise<RawJson> {
  const page = listing(ctx, ctx.version, params?.cursor, toolsKind(ctx.cfg));
  return page instanceof Promise ? page.then((p) => listResult(p, ctx)) : listResult(page, ctx);
}

/** Refused as prompts/get refuses an unknown prompt: a hidden, opted-out or unknown name gets the same words. */
function unknownTool(name: unknown) {
  if (typeof name !== 'string') return invalidParams('Tool name must be a string');
  return invalidParams(`Unknown tool "${clip(name, 100)}"`, { name });
}

/** A tool execution error (SEP-1303): the model reads what was wrong with its arguments and may retry. */
const toolError = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

/** Whether a render failed for what the caller sent (arguments), not for what it asked for. */
function argumentProblem(e: unknown): e is Error {
  if (e instanceof LookupError) return e.reason === 'missing_argument' || e.reason === 'invalid_argument';
  return e instanceof UpstreamInvalidParams;
}

export async function callTool(params: Params, ctx: CallContext, fact: CallFact): Promise<unknown> {
  // The fact, so that usage counts the call under the prompt as the view that routed it lists it.
  const { catalog, route } = await routeOf(ctx, params?.name, fact);
  const entry = mirroredEntry(catalog, toolsKind(ctx.cfg), params?.name);
  // Only a tool this caller's mirror lists is rendered: nothing else is ever routed upstream. A prompt
  // kept out of the mirror (`tool: false`, TOOLS_MIRROR_TAGS) is no tool, and its refusal no use of it.
  if (!entry) {
    fact.usageKey = null;
    throw unknownTool(params?.name);
  }
  let rendered: Record<string, unknown>;
  try {
    rendered = await renderPrompt(ctx, catalog, route, params);
  } catch (e) {
    if (argumentProblem(e)) {
      fact.toolError = true;
      return toolError(e.message);
    }
    throw e;
  }
  // A modern upstream asking the client for input (input-required.ts): the retry comes back as tools/call.
  if (rendered.resultType === 'input_required') return rendered;
  const messages = (rendered.messages ?? []) as { role: string; content: ContentBlock }[];
  const meta: Record<string, unknown> = {
    [RENDERED_PROMPT_META]: { name: entry.name, roles: messages.map((m) => m.role) },
  };
  // An upstream prompt's origin, as prompts/get gives it.
  if (isRecord(rendered._meta)) Object.assign(meta, rendered._meta);
  const result: CallToolResult = { content: messages.map((m) => m.content), isError: false, _meta: meta };
  return result;
}
