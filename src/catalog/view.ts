/**
 * One view of a catalog generation (views.ts) and the paginated lists it serves: prompts, and
 * every other ListKind (the tools mirror, skills, skill resources). List pages are serialized
 * lazily per protocol revision and kept as JSON strings per view, so a warm `prompts/list` is a
 * map lookup plus an id splice; cursors carry the view key under their MAC. What the view sees,
 * routes and serves by name is view-lookup.ts.
 *
 * The whole catalog (catalog.ts) is the view of admins, and of everyone when no prompt, skill or
 * upstream names a group.
 */
import { fnv1a } from '../lib/hash.js';
import { featuresOf, type Features, type ProtocolVersion } from '../lib/versions.js';
import { contentHints, type Entry } from './compiled.js';
import { mintCursor, readCursor } from './cursor.js';
import { LookupError } from './errors.js';
import { viewHints, type CacheHints } from './hints.js';
import { describePrompt, describeRemote } from './shape.js';
import { ViewLookup } from './view-lookup.js';

/**
 * One paginated list a view serves (prompts, the tools mirror, skills, skill resources): which of
 * its items it shows and how each is described. Pages, cursors and edge-cache keys are kept per
 * kind, under `id`, which must also name any configuration that changes the list (the mirror's
 * tags), since a page is immutable per generation.
 */
export interface ListKind<T = unknown> {
  /** Names the list in page keys and cursors; '' for prompts, whose page keys and cursors carry no kind. */
  readonly id: string;
  /** The result's array field (`prompts`, `tools`, `skills`, `resources`). */
  readonly field: string;
  /** The items this view lists, in page order: called once per view and kept. */
  items(view: View): readonly T[];
  /** What tells an item apart in its list (a name, a URI): a list's identity is its items' keys, in order. */
  keyOf(item: T): string;
  describe(item: T, f: Features): unknown;
}

/** prompts/list: every entry the view sees. */
export const PROMPTS: ListKind<Entry> = {
  id: '',
  field: 'prompts',
  items: (view) => view.entries,
  keyOf: (e) => e.name,
  describe: (e, f) =>
    'local' in e
      ? { ...describePrompt(e.local.record, f), name: e.name }
      : describeRemote(e.remote.prompt, e.remote.stale, f),
};

export class View extends ViewLookup {
  private readonly pages = new Map<string, Promise<string>>();
  private readonly lists = new Map<ListKind, readonly unknown[]>();
  private readonly listIds = new Map<ListKind, string>();
  private hintMemo: { ttlMs: number; hints: CacheHints } | undefined;

  /** The items of a list kind this view shows, made once per view. */
  itemsOf<T>(kind: ListKind<T>): readonly T[] {
    let items = this.lists.get(kind);
    if (!items) this.lists.set(kind, (items = kind.items(this)));
    return items as readonly T[];
  }

  /**
   * Which items a list holds, in which order, as a short base36 token its cursors carry
   * (cursor.ts): the same list in another generation, or in an isolate a generation behind, has
   * the same id, so its cursors stay good; any item added, removed or moved makes another.
   * Length and an FNV-1a of the keys: a clash could only pass a cursor on to another list's
   * offset, which is what paging through a changing list does anyway.
   */
  listId(kind: ListKind): string {
    let id = this.listIds.get(kind);
    if (id === undefined) {
      const items = this.itemsOf(kind);
      const keys = items.map((i) => kind.keyOf(i)).join('\n');
      id = `${items.length.toString(36)}z${fnv1a(keys).toString(36)}${fnv1a(`${keys}\n`).toString(36)}`;
      this.listIds.set(kind, id);
    }
    return id;
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
    const offset = cursor === undefined ? 0 : await readCursor(secret, cursor, this.listId(kind), bound);
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
    if (next < all.length) result.nextCursor = await mintCursor(secret, this.listId(kind), next, bound);
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
}
