/**
 * The CatalogWriter's upstream listings (catalog-writer.ts): the rows of upstreams-table.ts kept
 * in step with what the upstreams report and with the upstreams configured now. A change runs
 * under the writer's one-at-a-time lock (`mutate`), like its writes of prompts and skills, and is
 * published and announced through snapshot-sync.ts.
 */
import { sha256Hex } from '../lib/hash.js';
import { canonical } from './diff.js';
import type { ListReport } from './upstreams/report.js';
import { mergeReport } from './upstreams/merge-report.js';
import type { ChangedList } from '../session/events.js';
import type { SnapshotSync } from './snapshot-sync.js';
import type { CatalogSnapshot, UpstreamState } from './types.js';
import { upstreamConfigs } from './upstreams/config.js';
import type { UpstreamsTable } from './upstreams-table.js';
import type { Mutate } from './versioned-writes.js';

export class UpstreamListings {
  constructor(
    private readonly env: Env,
    private readonly upstreamRows: UpstreamsTable,
    private readonly sync: SnapshotSync,
    private readonly mutate: Mutate,
  ) {}

  /** Every configured upstream's last listing and health. */
  async upstreams(): Promise<UpstreamState[]> {
    const configured = await this.enabledUpstreams();
    return this.upstreamRows.all().filter((u) => configured.has(u.id));
  }

  /** The ids of the upstreams configured and enabled now (read fresh, not from the isolate's copy). */
  private async enabledUpstreams(): Promise<Set<string>> {
    return new Set((await upstreamConfigs(this.env, true)).filter((u) => u.enabled).map((u) => u.id));
  }

  /**
   * Fresh listings (or failures) of some upstreams, applied as one change.
   * The catalog changes (new generation, list_changed) only when a listing's
   * digest differs; a failure keeps the last good listing, marked stale, and
   * a stale/recovered flip makes a new generation without notifying anyone.
   * Skills (upstreams declaring the extension) are part of the state too, listed and failing apart from
   * the prompts (upstreams/skills.ts nextSkills); the event names which lists changed.
   */
  async upstreamsReported(reports: ListReport[]): Promise<{ changed: boolean; snapshot?: CatalogSnapshot }> {
    return this.mutate(async () => {
      let changed = false;
      let flipped = false;
      const lists = new Set<ChangedList>();
      const stamp = new Date().toISOString();
      for (const r of reports) {
        const digest = r.prompts ? await sha256Hex(canonical(r.prompts)) : undefined;
        const merged = mergeReport(this.upstreamRows.get(r.id), r, digest, stamp);
        this.upstreamRows.save(merged.state);
        for (const l of merged.lists) lists.add(l);
        changed ||= merged.changed;
        flipped ||= merged.flipped;
      }
      if (!changed && !flipped) return { changed };
      return { changed, snapshot: await this.sync.bump(changed, [...lists].sort()) };
    });
  }

  /** Drops the listings of upstreams no longer configured (after an admin change), announcing the change. */
  async reconcileUpstreams(): Promise<{ removed: string[] }> {
    return this.mutate(async () => {
      const configured = await this.enabledUpstreams();
      const removed = this.upstreamRows.ids().filter((id) => !configured.has(id));
      const hadSkills = removed.some((id) => this.upstreamRows.get(id)?.skills?.length);
      for (const id of removed) this.upstreamRows.delete(id);
      if (removed.length) await this.sync.bump(true, hadSkills ? ['prompts', 'skills'] : ['prompts']);
      return { removed };
    });
  }
}
