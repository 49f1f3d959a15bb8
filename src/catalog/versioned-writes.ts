/**
 * The CatalogWriter's writes of prompts and skills (catalog-writer.ts): a
 * publish, a removal and a rollback each become one change, diffed against
 * the current set and recorded as new versions under the next generation
 * (snapshot-sync.ts writes KV and announces it). Identical content changes
 * nothing; a dry run only diffs. Every write runs under the writer's
 * one-at-a-time lock (`mutate`).
 */
import { utf8Length } from './arguments.js';
import { canonical, diffSets, type SetDiff } from './diff.js';
import type { SnapshotSync } from './snapshot-sync.js';
import type { Issue } from './types.js';
import type { RowKind, Stored, VersionsTable } from './versions-table.js';

export type WriteResult =
  | { ok: true; generation: number; diff: SetDiff; versions: Record<string, number>; dryRun: boolean }
  | { ok: false; reason: 'invalid'; issues: Issue[] }
  | { ok: false; reason: 'not_found' | 'too_large'; message: string };

/**
 * The largest catalog snapshot a write may make, in bytes: KV stores at most 25 MiB in one value,
 * and upstream listings can still grow the snapshot after a write.
 */
export const MAX_CATALOG_BYTES = 24 * 1_048_576;

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
      const cur = this.versions.latest<Named>(kind);
      const incoming = new Set(records.map((r) => r.name));
      const removed = prune ? cur.filter((p) => !incoming.has(p.record.name)).map((p) => p.record.name) : [];
      return this.commit(kind, cur, records, removed, dryRun, by);
    });
  }

  remove(kind: RowKind, name: string, by?: string): Promise<WriteResult> {
    return this.mutate(async () => {
      const cur = this.versions.latest<Named>(kind);
      if (!cur.some((p) => p.record.name === name))
        return { ok: false, reason: 'not_found', message: `No ${kind.noun} named "${name}"` };
      return this.commit(kind, cur, [], [name], false, by);
    });
  }

  /** The exact text of an earlier version, as a new version. */
  rollback(kind: RowKind, name: string, version: number, by?: string): Promise<WriteResult> {
    return this.mutate(async () => {
      const record = this.versions.record<Named>(kind, name, version);
      if (!record) {
        const noun = kind.noun[0]!.toUpperCase() + kind.noun.slice(1);
        return { ok: false, reason: 'not_found', message: `${noun} "${name}" has no version ${version} with content` };
      }
      return this.commit(kind, this.versions.latest<Named>(kind), [record], [], false, by);
    });
  }

  private async commit(
    kind: RowKind,
    cur: Stored<Named>[],
    upserts: Named[],
    removals: string[],
    dryRun: boolean,
    by: string | undefined,
  ): Promise<WriteResult> {
    const before = new Map(cur.map((p) => [p.record.name, p.record]));
    const diff = diffSets(before, upserts, removals);
    const changed = [...diff.added, ...diff.changed];
    const unchanged = () => ({ ok: true as const, generation: this.sync.lastGeneration(), diff, versions: {}, dryRun });
    if (changed.length === 0 && diff.removed.length === 0) return unchanged();
    const byName = new Map(upserts.map((r) => [r.name, r]));
    // A removal is a version too, with no record.
    const written: [string, string | null][] = [
      ...changed.map((name): [string, string] => [name, canonical(byName.get(name)!)]),
      ...diff.removed.map((name): [string, null] => [name, null]),
    ];
    // Checked on a dry run too: it answers what the real write would.
    const tooLarge = this.overLimit(before, written);
    if (tooLarge) return { ok: false, reason: 'too_large', message: tooLarge };
    if (dryRun) return unchanged();
    const { generation, recorded: versions } = await this.sync.write([kind.list], (g) =>
      this.versions.add(kind, written, g, by),
    );
    // Object.fromEntries defines own properties: "__proto__" stays an ordinary key.
    return { ok: true, generation, diff, versions: Object.fromEntries(versions), dryRun: false };
  }

  /**
   * Why a write that grows the catalog past MAX_CATALOG_BYTES is refused before anything is
   * recorded (a snapshot KV cannot store would hold every later write back); undefined when it
   * fits, or when it does not grow the catalog (such a write is how an oversized one is mended).
   */
  private overLimit(before: Map<string, Named>, written: [string, string | null][]): string | undefined {
    let delta = 0;
    for (const [name, text] of written) {
      const old = before.get(name);
      delta += (text === null ? 0 : utf8Length(text) + 1) - (old ? utf8Length(canonical(old)) + 1 : 0);
    }
    const projected = this.sync.lastBytes() + delta;
    if (delta <= 0 || projected <= MAX_CATALOG_BYTES) return undefined;
    return `The catalog would be about ${projected} bytes, over the ${MAX_CATALOG_BYTES}-byte limit (one KV value); nothing was written`;
  }
}
