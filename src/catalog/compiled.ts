/**
 * One catalog generation compiled for serving, shared by all its views (view.ts): entries
 * sorted by name (a stable order across pages and isolates), templates compiled, names indexed,
 * and the set of groups the catalog uses (empty: every view is the whole catalog).
 */
import { LookupError } from './errors.js';
import { narrowHints, ownHints, type CacheHints } from './hints.js';
import type { Arguments } from './arguments.js';
import { indexSkills, type SkillIndex } from './skills/index.js';
import { compileTemplate, render, renderedLength, templatedFields, type Template } from './template.js';
import type { CatalogSnapshot, MessageRecord, PromptRecord, UpstreamPrompt, UpstreamState } from './types.js';

export interface CompiledMessage {
  readonly record: MessageRecord;
  /** Paths of templated string fields, with their compiled templates. */
  readonly slots: readonly { readonly path: readonly string[]; readonly template: Template }[];
}

export interface CompiledPrompt {
  readonly record: PromptRecord;
  /** Who sees it (undefined: everyone). */
  readonly groups: readonly string[] | undefined;
  readonly required: readonly string[];
  readonly messages: readonly CompiledMessage[];
}

export interface RemotePrompt {
  readonly prompt: UpstreamPrompt;
  /** The upstream failed since this listing was taken: served, but marked. */
  readonly stale: boolean;
  /** Who sees it: the upstream's configured groups. */
  readonly groups: readonly string[] | undefined;
}

export type Entry = { readonly name: string; readonly groups: readonly string[] | undefined } & (
  { readonly local: CompiledPrompt } | { readonly remote: RemotePrompt }
);

export interface Compiled {
  readonly snapshot: CatalogSnapshot;
  readonly generation: number;
  /** A merge made in this isolate ahead of the writer (cold upstream path): never stored by generation. */
  readonly provisional: boolean;
  /**
   * Every entry by name, owners of one name in precedence order (local first, then upstreams in
   * their configured order): a view lists and serves the first owner it sees (view-lookup.ts).
   */
  readonly sorted: readonly Entry[];
  /** The first owner of each name, sorted: the view of whoever sees everything. */
  readonly winners: readonly Entry[];
  /** Name → its owners, in precedence order. */
  readonly owners: ReadonlyMap<string, readonly Entry[]>;
  /**
   * The entries not counted under their own name (view-lookup.ts usageKey): `<name>@<upstream>` for
   * every upstream prompt, so a local prompt's figures never pass to an upstream's of its name.
   */
  readonly usageKeys: ReadonlyMap<Entry, string>;
  /** Prefix → upstream, and who sees the names under it that it has not listed. */
  readonly prefixes: ReadonlyMap<string, { readonly id: string; readonly groups: readonly string[] | undefined }>;
  /** Local and upstream skills (skills/index.ts). */
  readonly skills: SkillIndex;
  /** Every group any prompt, skill or upstream names; its identity is per generation (views.ts memoises on it). */
  readonly groups: ReadonlySet<string>;
  /** The content's own hints (configured TTL narrowed by the upstreams'), before views: per TTL. */
  hints: { ttlMs: number; hints: CacheHints } | undefined;
}

function compileMessage(record: MessageRecord): CompiledMessage {
  const content = record.content as unknown as Record<string, unknown>;
  const slots = templatedFields(content).map(({ obj, key }) => ({
    path: obj === content ? [key] : ['resource', key],
    template: compileTemplate(obj[key] as string),
  }));
  return { record, slots: slots.filter((s) => s.template.length > 1) };
}

/** An empty list would read as "nobody": it is refused at publish; here it means no restriction. */
export const groupsOf = (g: readonly string[] | undefined) => (g?.length ? g : undefined);

/**
 * Who sees an upstream's prompt: the upstream's groups as configured now (kept current even while
 * it fails); a listing's own copy only when the upstream names none (a snapshot from before the
 * state carried them), so it only ever narrows. The catalog and /status's collisions both use it.
 */
export const upstreamPromptGroups = (u: Pick<UpstreamState, 'groups'>, p: Pick<UpstreamPrompt, 'groups'>) =>
  groupsOf(u.groups) ?? groupsOf(p.groups);

/** The name a local prompt is served under: `<LOCAL_PREFIX><separator><name>` when there is a prefix. */
export const publishedName = (snapshot: Pick<CatalogSnapshot, 'localPrefix' | 'separator'>, name: string) =>
  snapshot.localPrefix ? `${snapshot.localPrefix}${snapshot.separator ?? '.'}${name}` : name;

export function compile(snapshot: CatalogSnapshot, provisional: boolean): Compiled {
  const published = (name: string) => publishedName(snapshot, name);
  const prefixes = new Map<string, { id: string; groups: readonly string[] | undefined }>();
  const groups = new Set<string>();
  const entries: Entry[] = snapshot.prompts.map((record) => ({
    name: published(record.name),
    groups: groupsOf(record.groups),
    local: {
      record,
      groups: groupsOf(record.groups),
      required: (record.arguments ?? []).filter((a) => a.required).map((a) => a.name),
      messages: record.messages.map(compileMessage),
    },
  }));
  for (const u of snapshot.upstreams ?? []) {
    if (u.prefix) prefixes.set(u.prefix, { id: u.id, groups: groupsOf(u.groups) });
    // A name that is already taken keeps its first owner (local prompts first) wherever that owner
    // is seen, and the writer logs the clash; a view that may not see the owner is served the next.
    for (const prompt of u.prompts) {
      const r = { prompt, stale: !u.ok, groups: upstreamPromptGroups(u, prompt) };
      const e: Entry = { name: prompt.name, groups: r.groups, remote: r };
      entries.push(e);
    }
  }
  for (const e of entries) for (const g of e.groups ?? []) groups.add(g);
  for (const { groups: g } of prefixes.values()) for (const x of g ?? []) groups.add(x);
  const skills = indexSkills(snapshot.skills ?? [], snapshot.upstreams ?? [], snapshot.localPrefix, groupsOf);
  for (const g of skills.groups) groups.add(g);
  // Stable: the owners of one name stay in precedence order.
  const sorted = entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const owners = new Map<string, Entry[]>();
  for (const e of sorted) {
    const list = owners.get(e.name);
    if (list) list.push(e);
    else owners.set(e.name, [e]);
  }
  // Every upstream prompt is counted apart from any local prompt of its name, prefixed or not: a local
  // prompt may take (or give up) that name in any later generation, and neither's figures may pass
  // to the other's viewers.
  const usageKeys = new Map<Entry, string>();
  for (const e of sorted) if ('remote' in e) usageKeys.set(e, `${e.name}@${e.remote.prompt.origin.upstream}`);
  return {
    snapshot,
    generation: snapshot.generation,
    provisional,
    sorted,
    winners: firstSeen(sorted, () => true),
    owners,
    usageKeys,
    prefixes,
    skills,
    groups,
    hints: undefined,
  };
}

/** Each name's first entry that `sees` admits, from entries sorted with owners in precedence order. */
export function firstSeen(sorted: readonly Entry[], sees: (e: Entry) => boolean): Entry[] {
  const out: Entry[] = [];
  for (const e of sorted) if (out.at(-1)?.name !== e.name && sees(e)) out.push(e);
  return out;
}

/**
 * The hints of the content alone: the configured TTL, narrowed by the upstreams' on their prompts and
 * on their skills alike, since every list and read is served under this one set of hints.
 */
export function contentHints(c: Compiled, ttlMs: number): CacheHints {
  if (c.hints?.ttlMs !== ttlMs)
    c.hints = {
      ttlMs,
      hints: narrowHints(
        ownHints(ttlMs),
        (c.snapshot.upstreams ?? []).flatMap((u) => [u.hints, u.skillsHints]),
      ),
    };
  return c.hints.hints;
}

export function renderMessage(m: CompiledMessage, args: Arguments): MessageRecord['content'] {
  if (m.slots.length === 0) return m.record.content;
  const out = { ...(m.record.content as unknown as Record<string, unknown>) };
  for (const { path, template } of m.slots) {
    if (path.length === 1) out[path[0]!] = render(template, args);
    else {
      const inner = { ...(out[path[0]!] as Record<string, unknown>) };
      inner[path[1]!] = render(template, args);
      out[path[0]!] = inner;
    }
  }
  return out as unknown as MessageRecord['content'];
}

/**
 * What substitution would produce, counted before anything is built: a
 * large value used many times must not make a large response (one 900 KB
 * value used 20 times would render 18 MB).
 */
export function checkRenderedSize(p: CompiledPrompt, args: Arguments, max: number): void {
  if (max === Infinity) return;
  let total = 0;
  for (const m of p.messages) for (const { template } of m.slots) total += renderedLength(template, args);
  if (total > max)
    throw new LookupError(
      'invalid_argument',
      `The rendered prompt would be ${total} bytes; the limit is ${max} bytes. Shorten the arguments`,
      { limit: max },
    );
}
