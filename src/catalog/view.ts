/**
 * What one view of a catalog generation serves (views.ts): the prompts its principals may see,
 * listed, described, rendered, completed and routed. A prompt outside the view is answered
 * exactly as an unknown one, and its name is never routed upstream. List pages are serialized
 * lazily per protocol revision and kept as JSON strings per view, so a warm `prompts/list` is a
 * map lookup plus an id splice; cursors carry the view key under their MAC.
 *
 * The whole catalog (catalog.ts) is the view of admins, and of everyone when no prompt names a group.
 */
import type { GetPromptResult, PromptMessage } from '@modelcontextprotocol/sdk/types.js';
import { featuresOf, type Features, type ProtocolVersion } from '../lib/versions.js';
import { readArguments, UNLIMITED, type ArgumentLimits } from './arguments.js';
import { completeValues, type Completion } from './complete.js';
import {
  checkRenderedSize,
  contentHints,
  renderMessage,
  type Compiled,
  type CompiledPrompt,
  type Entry,
} from './compiled.js';
import { mintCursor, readCursor } from './cursor.js';
import { LookupError } from './errors.js';
import { viewHints, type CacheHints } from './hints.js';
import { describePrompt, describeRemote, shapeContent } from './shape.js';
import { findSkillFile, type SkillEntry, type SkillFileRef } from './skills/index.js';
import type { PromptOrigin } from './types.js';
import { sees } from './views.js';
import { clip } from '../lib/clip.js';

/** Where prompts/get and completion/complete for a name go. */
export type Route = { kind: 'local' } | { kind: 'remote'; origin: PromptOrigin };

const LOCAL: Route = { kind: 'local' };

/**
 * One paginated list a view serves (prompts, the tools mirror, skills, skill resources): which of
 * its items it shows and how each is described. Pages, cursors and edge-cache keys are kept per
 * kind, under `id`, which must also name any configuration that changes the list (the mirror's
 * tags), since a page is immutable per generation.
 */
export interface ListKind<T = unknown> {
  /** Names the list in page keys and cursors; '' for prompts, so their keys stay as they were. */
  readonly id: string;
  /** The result's array field (`prompts`, `tools`, `skills`, `resources`). */
  readonly field: string;
  /** The items this view lists, in page order: called once per view and kept. */
  items(view: View): readonly T[];
  describe(item: T, f: Features): unknown;
}

/** prompts/list: every entry the view sees. */
export const PROMPTS: ListKind<Entry> = {
  id: '',
  field: 'prompts',
  items: (view) => view.entries,
  describe: (e, f) =>
    'local' in e
      ? { ...describePrompt(e.local.record, f), name: e.name }
      : describeRemote(e.remote.prompt, e.remote.stale, f),
};

export class View {
  readonly generation: number;
  readonly provisional: boolean;
  readonly size: number;
  private readonly sorted: readonly Entry[];
  private readonly pages = new Map<string, Promise<string>>();
  private readonly lists = new Map<ListKind, readonly unknown[]>();
  private hintMemo: { ttlMs: number; hints: CacheHints } | undefined;

  /**
   * @param key the view key (views.ts); '' for everyone's view of a catalog without groups.
   * @param allowed the groups the view sees (null: every prompt).
   */
  constructor(
    readonly compiled: Compiled,
    readonly key: string,
    private readonly allowed: ReadonlySet<string> | null,
  ) {
    this.generation = compiled.generation;
    this.provisional = compiled.provisional;
    this.sorted = allowed === null ? compiled.sorted : compiled.sorted.filter((e) => sees(allowed, e.groups));
    this.size = this.sorted.length;
  }

  /**
   * Where a name is served. Names of upstream prompts route by the listing;
   * an unlisted name with a known prefix still routes to that upstream with
   * the rest of the name, so routing never depends on an earlier list. A name
   * this view may not see is routed exactly as a name nobody has: by its
   * prefix when the view sees that upstream, else to the local "unknown
   * prompt" (so a hidden name cannot be told from an unknown one).
   */
  route(name: unknown, separator: string): Route {
    if (typeof name !== 'string') return LOCAL;
    const local = this.compiled.byName.get(name);
    if (local && sees(this.allowed, local.groups)) return LOCAL;
    const r = this.compiled.remote.get(name);
    if (r && sees(this.allowed, r.groups)) return { kind: 'remote', origin: r.prompt.origin };
    const i = name.indexOf(separator);
    const upstream = i > 0 ? this.compiled.prefixes.get(name.slice(0, i)) : undefined;
    if (upstream && sees(this.allowed, upstream.groups))
      return { kind: 'remote', origin: { upstream: upstream.id, name: name.slice(i + separator.length) } };
    return LOCAL;
  }

  /** The prompt entries this view sees, sorted by name. */
  get entries(): readonly Entry[] {
    return this.sorted;
  }

  /** Whether this view may see something guarded by these groups (undefined: everyone). */
  sees(groups: readonly string[] | undefined): boolean {
    return sees(this.allowed, groups);
  }

  /** The items of a list kind this view shows, made once per view. */
  itemsOf<T>(kind: ListKind<T>): readonly T[] {
    let items = this.lists.get(kind);
    if (!items) this.lists.set(kind, (items = kind.items(this)));
    return items as readonly T[];
  }

  /**
   * One page of a list (prompts unless `kind` says otherwise), as a JSON string. Cached per
   * (kind, revision, offset, page size) for the life of this generation. A cursor is bound to
   * its view and its kind.
   */
  async listPage(
    version: ProtocolVersion,
    cursor: unknown,
    pageSize: number,
    secret: string,
    kind: ListKind = PROMPTS,
  ): Promise<string> {
    const bound = kind.id ? `${this.key}|${kind.id}` : this.key;
    const offset = cursor === undefined ? 0 : await readCursor(secret, cursor, this.generation, bound);
    if (offset > this.itemsOf(kind).length) throw new LookupError('invalid_cursor', 'Invalid cursor');
    const key = `${kind.id}|${version}|${offset}|${pageSize}`;
    let page = this.pages.get(key);
    if (!page) {
      page = this.buildPage(kind, bound, version, offset, pageSize, secret);
      this.pages.set(key, page);
      page.catch(() => this.pages.delete(key));
    }
    return page;
  }

  private async buildPage(
    kind: ListKind,
    bound: string,
    version: ProtocolVersion,
    offset: number,
    pageSize: number,
    secret: string,
  ): Promise<string> {
    const f = featuresOf(version);
    const all = this.itemsOf(kind);
    const result: Record<string, unknown> = {
      [kind.field]: all.slice(offset, offset + pageSize).map((i) => kind.describe(i, f)),
    };
    const next = offset + pageSize;
    if (next < all.length) result.nextCursor = await mintCursor(secret, this.generation, next, bound);
    return JSON.stringify(result);
  }

  /**
   * The hints every list page of this view carries: the content's (contentHints), made `private`
   * when the catalog uses groups at all, since what a caller sees then depends on who it is.
   */
  cacheHints(ttlMs: number): CacheHints {
    if (this.hintMemo?.ttlMs !== ttlMs) {
      const hints = viewHints(contentHints(this.compiled, ttlMs), this.compiled.groups.size > 0);
      this.hintMemo = { ttlMs, hints };
    }
    return this.hintMemo.hints;
  }

  /** The content's own hints, before views: whether a shared page must also be kept per caller (listing.ts). */
  contentHints(ttlMs: number): CacheHints {
    return contentHints(this.compiled, ttlMs);
  }

  /** The skill whose SKILL.md is at `uri`, when this view sees it (else exactly as unknown: undefined). */
  skill(uri: unknown): SkillEntry | undefined {
    if (typeof uri !== 'string') return undefined;
    const s = this.compiled.skills.byUri.get(uri);
    return s && sees(this.allowed, s.groups) ? s : undefined;
  }

  /** What a skill file URI names, when this view sees its skill (else undefined, as for an unknown URI). */
  skillFile(uri: unknown): SkillFileRef | undefined {
    return typeof uri === 'string' ? findSkillFile(this.compiled.skills, uri, (g) => sees(this.allowed, g)) : undefined;
  }

  /** Whether this view serves a prompt by that name (local or listed upstream). */
  has(name: string): boolean {
    const local = this.compiled.byName.get(name);
    if (local) return sees(this.allowed, local.groups);
    const remote = this.compiled.remote.get(name);
    return remote !== undefined && sees(this.allowed, remote.groups);
  }

  /** One prompt's listing entry (what prompts/list shows for it), or undefined. */
  describe(name: string, version: ProtocolVersion): Record<string, unknown> | undefined {
    const f = featuresOf(version);
    const local = this.compiled.byName.get(name);
    if (local) return sees(this.allowed, local.groups) ? { ...describePrompt(local.record, f), name } : undefined;
    const remote = this.compiled.remote.get(name);
    return remote && sees(this.allowed, remote.groups) ? describeRemote(remote.prompt, remote.stale, f) : undefined;
  }

  get(name: unknown, args: unknown, version: ProtocolVersion, limits: ArgumentLimits = UNLIMITED): GetPromptResult {
    const p = this.lookup(name);
    const given = readArguments(args, limits);
    const missing = p.required.filter((r) => !Object.hasOwn(given, r));
    if (missing.length) {
      throw new LookupError(
        'missing_argument',
        `Missing required argument${missing.length > 1 ? 's' : ''} ${missing.map((m) => `"${m}"`).join(', ')} for prompt "${p.record.name}"`,
        { missing },
      );
    }
    checkRenderedSize(p, given, limits.maxRenderedBytes);
    // Undeclared arguments are ignored: placeholders can only name declared ones (checked at publish).
    const f = featuresOf(version);
    const messages: PromptMessage[] = p.messages.map((m) => ({
      role: m.record.role,
      content: shapeContent(renderMessage(m, given), f),
    }));
    const result: GetPromptResult = { messages };
    if (p.record.description !== undefined) result.description = p.record.description;
    return result;
  }

  complete(name: unknown, argument: string, value: string): Completion {
    const p = this.lookup(name);
    const arg = p.record.arguments?.find((a) => a.name === argument);
    return completeValues(arg?.values ?? [], value);
  }

  names(): string[] {
    return this.sorted.map((e) => e.name);
  }

  private lookup(name: unknown): CompiledPrompt {
    if (typeof name !== 'string') throw new LookupError('invalid_argument', 'Prompt name must be a string');
    const p = this.compiled.byName.get(name);
    if (!p || !sees(this.allowed, p.groups))
      throw new LookupError('unknown_prompt', `Unknown prompt "${clip(name, 100)}"`, { name });
    return p;
  }
}
