/**
 * The catalog pages' calls that run a prompt: the preview (prompts/get) and the allowed values of
 * its arguments (completion/complete), through the same dispatch as /mcp (modern era, the
 * request's own scope), so views, limits and upstream routing all apply.
 */
import type { View } from '../catalog/catalog.js';
import { CallFact } from '../lib/record.js';
import type { RequestScope } from '../lib/scope.js';
import { CLIENT_CAPABILITIES_META, MODERN_VERSION_META, MODERN_VERSIONS } from '../lib/versions.js';
import { callContext } from '../rpc/context.js';
import { CallCancelled } from '../rpc/cancels.js';
import { call } from '../rpc/dispatch.js';
import { ErrorCode, HttpError } from '../rpc/errors.js';
import type { ArgumentRow, Preview, PreviewMessage } from '../web/types.js';
import { servedAs } from './web-cards.js';

const VERSION = MODERN_VERSIONS[0];

type Reply = { result?: unknown; error?: { code?: number; message?: string } };

/**
 * One JSON-RPC call through /mcp's dispatch, modern era, in the request's scope: its reply as
 * prompts/get or completion/complete gives it. An HTTP error the method ends with (a capability
 * the page does not have) is an error reply here too.
 */
async function rpc(scope: RequestScope, method: string, params: Record<string, unknown>): Promise<Reply> {
  const msg = {
    kind: 'request' as const,
    id: 'web',
    method,
    params: { ...params, _meta: { [MODERN_VERSION_META]: VERSION, [CLIENT_CAPABILITIES_META]: {} } },
  };
  try {
    // A fact of its own, not the request record's: page previews are not MCP clients' use of a prompt.
    return JSON.parse(await call(msg, callContext(scope, 'modern', VERSION), new CallFact(method, msg.id))) as Reply;
  } catch (e) {
    if (e instanceof HttpError) return { error: { message: e.message } };
    // The page's reader left while an upstream was asked: nobody reads this answer, and it is not a fault.
    if (e instanceof CallCancelled)
      return { error: { code: ErrorCode.RequestCancelled, message: 'Cancelled: the page was closed' } };
    throw e;
  }
}

/** The preview of a prompt whose upstream asks for input while it is fetched: only an MCP client can give it. */
export const NEEDS_INPUT = 'This prompt needs input the web preview cannot give: use it from an MCP client.';

/** prompts/get's messages for these arguments, or the error it answered (as the preview shows it). */
export async function preview(scope: RequestScope, name: string, args: Record<string, string>): Promise<Preview> {
  const reply = await rpc(scope, 'prompts/get', { name, arguments: args });
  if (reply.error) return { error: reply.error.message ?? 'error' };
  const r = reply.result as { resultType?: unknown; messages?: unknown; description?: string } | undefined;
  // An upstream's input_required answer (multi-round-trip requests) has no messages.
  if (r?.resultType === 'input_required') return { error: NEEDS_INPUT };
  if (!Array.isArray(r?.messages)) return { error: 'prompts/get answered without messages' };
  return { messages: r.messages as PreviewMessage[], description: r.description };
}

/** completion/complete's values for one argument; undefined when the call failed (an upstream down, say). */
async function completion(
  scope: RequestScope,
  name: string,
  argument: string,
  value: string,
  context: Record<string, string> = {},
): Promise<string[] | undefined> {
  const reply = await rpc(scope, 'completion/complete', {
    ref: { type: 'ref/prompt', name },
    argument: { name: argument, value },
    ...(Object.keys(context).length ? { context: { arguments: context } } : {}),
  });
  // Invalid params is the upstream's settled answer (it offers no values here); anything else may pass.
  if (reply.error && reply.error.code !== ErrorCode.InvalidParams) return undefined;
  const values = (reply.result as { completion?: { values?: unknown } } | undefined)?.completion?.values;
  return Array.isArray(values) ? values.filter((v): v is string => typeof v === 'string') : [];
}

/** completion/complete's values for one argument (empty when the prompt or its upstream offers none, or failed). */
export async function complete(
  scope: RequestScope,
  name: string,
  argument: string,
  value: string,
  context: Record<string, string> = {},
): Promise<string[]> {
  return (await completion(scope, name, argument, value, context)) ?? [];
}

/**
 * The arguments table: declared arguments with their allowed values from completion/complete.
 * `known` is false when a completion failed: its row shows no values, and the page is not kept
 * (web-cache.ts), or a passing upstream failure would read as "any value" until the next hour.
 */
export async function argumentsOf(
  scope: RequestScope,
  view: View,
  name: string,
): Promise<{ rows: ArgumentRow[]; known: boolean }> {
  const declared = servedAs(view, name)?.record.arguments ?? [];
  const values = await Promise.all(declared.map((a) => completion(scope, name, a.name, '')));
  const rows = declared.map((a, i) => ({
    name: a.name,
    title: a.title,
    description: a.description,
    required: a.required === true,
    values: values[i] ?? [],
  }));
  return { rows, known: values.every((v) => v !== undefined) };
}
