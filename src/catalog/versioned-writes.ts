/**
 * The CatalogWriter's writes of prompts and skills (catalog-writer.ts): a
 * publish, a removal and a rollback each become one change, diffed against
 * the current set and recorded as new versions under the next generation
 * (snapshot-sync.ts writes KV and announces it). Identical content changes
 * nothing; a dry run only diffs. Every write runs under the writer's
 * one-at-a-time lock (`mutate`).
 */
import { utf8Length } from './arguments.js';
import { canonical, diffTexts, type SetDiff } from './diff.js';
import type { SnapshotSync } from './snapshot-sync.js';
import { KV_VALUE_MAX_BYTES } from './snapshot-write.js';
import type { Issue } from './types.js';
import type { RowKind, VersionsTable } from './versions-table.js';

export type WriteResult =
  | { ok: true; generation: number; diff: SetDiff; versions: Record<string, number>; dryRun: boolean }
  | { ok: false; reason: 'invalid'; issues: Issue[] }
  | { ok: false; reason: 'not_found' | 'not_yours' | 'too_large'; message: string };

/**
 * The largest catalog snapshot a write may make, in bytes. KV would store 25 MiB in one value, but
 * the writer must also rewrite the whole catalog within a Workers isolate's 128 MB: with 20,000
 * prompts, every one changed, 13.6 MB fits and 18.6 MB does not (`npm run bench:memory`,
 * bench/RESULTS.md "Memory"). Upstream listings can still grow the snapshot after a write.
 */
export const MAX_CATALOG_BYTES = 12 * 1_048_576;

type Named = { name: string };
/** The writer's one-at-a-time lock (catalog-writer.ts `mutate`). */
export type Mutate = <T>(fn: () => Promise<T>) => Promise<T>;

export class VersionedWrites {
  constructor(
    private readonly versions: VersionsTable,
    private readonly sync: SnapshotSync,
    private readonly mutate: Mutate,
  ) {}

  /** `records` as the new versions of their names; with `prune`, the names missing from them are removed. */
  apply(kind: RowKind, records: Named[], prune: boolean, dryRun: boolean, by?: string): Promise<WriteResult> {
    return this.mutate(async () => {
      const before = this.versions.latestTexts(kind);
      const incoming = new Set(records.map((r) => r.name));
      const removed = prune ? [...before.keys()].filter((name) => !incoming.has(name)) : [];
      return this.commit(kind, before, records, removed, dryRun, by);
    });
  }

  remove(kind: RowKind, name: string, by?: string): Promise<WriteResult> {
    return this.mutate(async () => {
      const before = this.versions.latestTexts(kind);
      if (!before.has(name)) return { ok: false, reason: 'not_found', message: `No ${kind.noun} named "${name}"` };
      return this.commit(kind, before, [], [name], false, by);
    });
  }

  /**
   * The exact text of an earlier version, as a new version, if it passes today's `check`: a version
   * recorded before a rule was tightened is refused as any new write of it would be.
   */
  rollback(
    kind: RowKind,
    name: string,
    version: number,
    check: (record: unknown) => Issue[],
    by?: string,
  ): Promise<WriteResult> {
    return this.mutate(async () => {
      const record = this.versions.record<Named>(kind, name, version);
      if (!record) {
        const noun = kind.noun[0]!.toUpperCase() + kind.noun.slice(1);
        return { ok: false, reason: 'not_found', message: `${noun} "${name}" has no version ${version} with content` };
      }
      const issues = check(record);
      if (issues.length) return { ok: false, reason: 'invalid', issues };
      return this.commit(kind, this.versions.latestTexts(kind), [record], [], false, by);
    });
  }

  /**
   * `before`: the current set as stored text, by name. Each record is made canonical once, and
   * the old set is never parsed whole: a write of a catalog at its size limit must fit in the
   * writer's 128 MB beside the snapshot it then builds (bench/RESULTS.md, "Memory").
   */
  private async commit(
    kind: RowKind,
    before: Map<string, string>,
    upserts: Named[],
    removals: string[],
    dryRun: boolean,
    by: string | undefined,
  ): Promise<WriteResult> {
    const texts = new Map(upserts.map((r) => [r.name, canonical(r)]));
    const diff = diffTexts(before, texts, removals);
    const unchanged = () => ({ ok: true as const, generation: this.sync.lastGeneration(), diff, versions: {}, dryRun });
    if (diff.added.length === 0 && diff.changed.length === 0 && diff.removed.length === 0)
      return this.unpublished() ?? unchanged();
    // A removal is a version too, with no record.
    const written: [string, string | null][] = [
      ...[...diff.added, ...diff.changed].map((name): [string, string] => [name, texts.get(name)!]),
      ...diff.removed.map((name): [string, null] => [name, null]),
    ];
    texts.clear();
    // Checked on a dry run too: it answers what the real write would.
    const tooLarge = this.overLimit(before, written);
    before.clear();
    if (tooLarge) return { ok: false, reason: 'too_large', message: tooLarge };
    if (dryRun) return unchanged();
    const { generation, recorded: versions } = await this.sync.write([kind.list], (g) => {
      const added = this.versions.add(kind, written, g, by);
      // Stored: the texts need not wait in memory while the snapshot is built beside them.
      written.length = 0;
      return added;
    });
    // Object.fromEntries defines own properties: "__proto__" stays an ordinary key.
    return { ok: true, generation, diff, versions: Object.fromEntries(versions), dryRun: false };
  }

  /**
   * Why a write that grows the catalog past MAX_CATALOG_BYTES is refused before anything is
   * recorded (a snapshot KV cannot store would hold every later write back); undefined when it
   * fits. A write that does not grow the catalog is how an oversized one is mended, and is refused
   * only when its snapshot would still be too large for KV. Measured from the last snapshot's
   * size, which counts one KV refused as too large (upstream listings grew it past one value): a
   * growing write after it is refused here, not failed there.
   */
  private overLimit(before: Map<string, string>, written: [string, string | null][]): string | undefined {
    let delta = 0;
    for (const [name, text] of written) {
      const old = before.get(name);
      delta += (text === null ? 0 : utf8Length(text) + 1) - (old === undefined ? 0 : utf8Length(old) + 1);
    }
    const projected = this.sync.lastBytes() + delta;
    if (delta > 0 && projected > MAX_CATALOG_BYTES)
      return `The catalog would be about ${projected} bytes, over the ${MAX_CATALOG_BYTES}-byte catalog limit; nothing was written`;
    // Recorded but unpublishable, it would be answered 503 and then "nothing to change" on the repeat.
    if (projected > KV_VALUE_MAX_BYTES)
      return `The catalog would still be about ${projected} bytes with its upstream listings, over KV's ${KV_VALUE_MAX_BYTES}-byte value limit: remove at least ${projected - KV_VALUE_MAX_BYTES} more bytes in one write, or trim the upstreams; nothing was written`;
    return undefined;
  }

  /**
   * A write with nothing to change, while what is already recorded cannot be served (KV refused
   * its snapshot as too large): "ok" would tell a publisher its catalog is live when it is not.
   */
  private unpublished(): WriteResult | undefined {
    const bytes = this.sync.unpublishedTooLarge();
    if (bytes === undefined) return undefined;
    return {
      ok: false,
      reason: 'too_large',
      message: `Nothing to change, but generation ${this.sync.lastGeneration()} is recorded and not served: its snapshot is about ${bytes} bytes, over KV's ${KV_VALUE_MAX_BYTES}-byte value limit. Remove or shrink prompts or skills, or trim the upstreams, to publish it`,
    };
  }
}
