/**
 * The tools mirror (docs/tools-mirror.md): the view's prompts, local and upstream, as MCP tools for
 * clients that show no prompts. One list kind per mirror configuration, built from the same view
 * entries as prompts/list, so the mirror never drifts from the prompt catalog of its generation.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../lib/config.js';
import type { Features } from '../lib/versions.js';
import type { Entry } from './compiled.js';
import { ORIGIN_META } from './shape.js';
import type { ArgumentRecord } from './types.js';
import { shortHash } from './upstreams/names.js';
import type { ListKind, View } from './view.js';

/**
 * The MCP tool-name rule (2025-11-25): 1-128 of A-Z a-z 0-9 _ . -. Prompt names already keep to it
 * (local names at most 64, LOCAL_PREFIX at most 32 plus a separator, upstream names at most 64),
 * so a tool is named exactly like its prompt; a name that did not fit would simply not be mirrored.
 */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** The `_meta` key of a tools/call result that says it is a rendered prompt, not a tool's own output. */
export const RENDERED_PROMPT_META = 'dev.promptgate/renderedPrompt';

/** Short: it is repeated in every tool's description, so it costs list bytes and model context. */
const NOTE = "Returns this prompt, rendered: the user's chosen instructions to follow.";

/**
 * Whether an entry is mirrored: a valid tool name, no `tool: false` in its record, and, when the
 * deployment names tags, one of them. Upstream prompts carry no tags, so a tag-restricted mirror
 * shows local prompts only.
 */
function mirrored(e: Entry, tags: ReadonlySet<string> | null): boolean {
  if (!TOOL_NAME.test(e.name)) return false;
  if ('remote' in e) return tags === null && e.remote.prompt.tool !== false;
  const r = e.local.record;
  return r.tool !== false && (tags === null || (r.tags ?? []).some((t) => tags.has(t)));
}

function inputSchema(args: readonly ArgumentRecord[] | undefined, f: Features): Tool['inputSchema'] {
  // No prototype: an argument named `__proto__` must become a property, not replace the object's prototype.
  const properties = Object.create(null) as Record<string, Record<string, unknown>>;
  const required: string[] = [];
  for (const a of args ?? []) {
    const p: Record<string, unknown> = { type: 'string' };
    if (f.titles && a.title !== undefined) p.title = a.title;
    if (a.description !== undefined) p.description = a.description;
    if (a.values?.length) p.enum = a.values;
    properties[a.name] = p;
    if (a.required) required.push(a.name);
  }
  return required.length ? { type: 'object', properties, required } : { type: 'object', properties };
}

/** One entry as a tool, shaped for the revision as prompts are (shape.ts): no title before 2025-06-18, no icons before 2025-11-25. */
export function describeTool(e: Entry, f: Features): Tool {
  const local = 'local' in e;
  const r = local ? e.local.record : e.remote.prompt;
  const args: readonly ArgumentRecord[] | undefined = r.arguments;
  const tool: Tool = {
    name: e.name,
    description: r.description === undefined ? NOTE : `${r.description}\n\n${NOTE}`,
    inputSchema: inputSchema(args, f),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: !local },
  };
  if (f.titles && r.title !== undefined) tool.title = r.title;
  if (f.icons && r.icons?.length) tool.icons = r.icons;
  if (!local && f.titles) {
    const { origin } = e.remote.prompt;
    tool._meta = { [ORIGIN_META]: e.remote.stale ? { ...origin, stale: true } : origin };
  }
  return tool;
}

const kinds = new Map<string, ListKind<Entry>>();
const byConfig = new WeakMap<Config, ListKind<Entry>>();

/**
 * tools/list's kind for this configuration, made once per tag list. Its id names the tags (a digest,
 * so tag names never appear in a cache key), since pages and cursors are kept per kind.
 */
export function toolsKind(cfg: Config): ListKind<Entry> {
  // One WeakMap lookup on the hot path (a config lives as long as its env).
  const known = byConfig.get(cfg);
  if (known) return known;
  const key = cfg.toolsMirrorTags.join('\n');
  let kind = kinds.get(key);
  if (!kind) {
    const tags = cfg.toolsMirrorTags.length ? new Set(cfg.toolsMirrorTags) : null;
    kind = {
      id: tags ? `tools:${shortHash(key)}` : 'tools',
      field: 'tools',
      items: (view: View) => view.entries.filter((e) => mirrored(e, tags)),
      keyOf: (e: Entry) => e.name,
      describe: describeTool,
    };
    kinds.set(key, kind);
  }
  byConfig.set(cfg, kind);
  return kind;
}

const names = new WeakMap<readonly Entry[], ReadonlyMap<string, Entry>>();

/** The entry a view mirrors under this tool name, or undefined (hidden, opted out, untagged, unknown). */
export function mirroredEntry(view: View, kind: ListKind<Entry>, name: unknown): Entry | undefined {
  if (typeof name !== 'string') return undefined;
  const items = view.itemsOf(kind);
  let byName = names.get(items);
  if (!byName) names.set(items, (byName = new Map(items.map((e) => [e.name, e]))));
  return byName.get(name);
}
