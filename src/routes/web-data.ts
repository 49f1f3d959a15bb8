/**
 * What the catalog pages show, gathered for the viewer's view: the prompts it may see (cards),
 * one prompt's arguments, history and last change, and the preview and completions, which run
 * prompts/get and completion/complete through the same dispatch as /mcp (modern era, the
 * request's own scope), so views, limits and upstream routing all apply. Upstream health is
 * web-health.ts's.
 */
import type { View } from '../catalog/catalog.js';
import { catalogWriter } from '../catalog/stubs.js';
import { bounded, STATUS_CALL_MS } from '../lib/bounded.js';
import { CallFact } from '../lib/record.js';
import type { RequestScope } from '../lib/scope.js';
import { CLIENT_CAPABILITIES_META, MODERN_VERSION_META, MODERN_VERSIONS } from '../lib/versions.js';
import { callContext } from '../rpc/context.js';
import { call } from '../rpc/dispatch.js';
import { ErrorCode, HttpError } from '../rpc/errors.js';
import { dailyUse } from '../usage/query.js';
import type { ArgumentRow, Preview, PreviewMessage, PromptCard, VersionRow } from '../web/types.js';

const VERSION = MODERN_VERSIONS[0];
const DAYS = 7;

/**
 * prompts/get counts per prompt and UTC day (usage/query.ts), kept per isolate for the hour (pages
 * are cached per hour too); undefined when the store could not be read in time. A failed read is
 * forgotten at once: kept, it would blank every sparkline of this isolate until the hour ends.
 */
let usageMemo: { hour: number; use: Promise<Map<string, number[]> | undefined> } | undefined;
export const utcHour = () => Math.floor(Date.now() / 3_600_000);
function usage(env: Env): Promise<Map<string, number[]> | undefined> {
  const hour = utcHour();
  if (usageMemo?.hour !== hour) {
    const memo: NonNullable<typeof usageMemo> = {
      hour,
      // Bounded as /status's figures are: a usage store that hangs leaves the cards without figures, not the page waiting.
      use: bounded(dailyUse(env, DAYS), STATUS_CALL_MS).catch(() => {
        if (usageMemo === memo) usageMemo = undefined;
        return undefined;
      }),
    };
    usageMemo = memo;
  }
  return usageMemo.use;
}

/**
 * What the view serves under a name (view-lookup.ts `served`): the local record or the upstream's
 * listing entry, and where it comes from (`local` or the upstream's id).
 */
function servedAs(view: View, name: string) {
  const e = view.served(name);
  if (!e) return undefined;
  return 'local' in e
    ? { record: e.local.record, local: e.local.record, source: 'local' }
    : { record: e.remote.prompt, local: undefined, source: e.remote.prompt.origin.upstream };
}

function cardOf(view: View, name: string, use: ReadonlyMap<string, number[]> | undefined): PromptCard {
  const served = servedAs(view, name);
  const r = served?.record;
  const local = served?.local;
  return {
    name,
    title: r?.title,
    description: r?.description,
    tags: local?.tags ?? [],
    source: served?.source ?? 'local',
    // Counted per owner where a name has several (view-lookup.ts usageKey): the one this viewer is served.
    use: use ? (use.get(view.usageKey(name) ?? name) ?? []) : undefined,
  };
}

/**
 * Whether the cards carry their week of use. Without it (the store did not answer) they show none,
 * and their page must not be kept anywhere (web-cache.ts): the next request reads usage again.
 */
interface WithUse {
  readonly usageKnown: boolean;
}

/** Every prompt the view holds, as cards with their week of use. */
export async function cardsOf(env: Env, view: View): Promise<WithUse & { cards: PromptCard[] }> {
  const use = await usage(env);
  return { cards: view.names().map((n) => cardOf(view, n, use)), usageKnown: use !== undefined };
}

/** One prompt's card, or undefined when the view does not hold it (exactly like an unknown one). */
export async function cardFor(
  env: Env,
  view: View,
  name: string,
): Promise<(WithUse & { card: PromptCard }) | undefined> {
  if (!view.has(name)) return undefined;
  const use = await usage(env);
  return { card: cardOf(view, name, use), usageKnown: use !== undefined };
}

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

/** When a prompt last changed (its latest version) and, for admins, every version. */
export async function changesOf(
  env: Env,
  view: View,
  name: string,
  admin: boolean,
): Promise<{ changed: string | undefined; history: VersionRow[] | undefined }> {
  const served = servedAs(view, name);
  const local = served?.local;
  if (!local) {
    const state = view.compiled.snapshot.upstreams?.find((u) => u.id === served?.source);
    return { changed: state?.lastSuccess ?? undefined, history: undefined };
  }
  const { versions } = await catalogWriter(env).get(local.name);
  const history = versions.map((v) => ({ version: v.version, createdAt: v.createdAt, by: v.by, deleted: v.deleted }));
  return { changed: versions.at(-1)?.createdAt, history: admin ? history : undefined };
}
