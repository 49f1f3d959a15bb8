/**
 * The CatalogWriter's upstream listings (catalog-writer.ts): the rows of upstreams-table.ts kept
 * in step with what the upstreams report and with the upstreams configured now. A change runs
 * under the writer's one-at-a-time lock (`mutate`, write-lock.ts), like its writes of prompts and
 * skills, and is published and announced through snapshot-sync.ts. Reads (`upstreams`) do not wait
 * for it: during a setUpstreams they may see the new list guarding rows not yet reconciled.
 */
import { sha256Hex } from '../lib/hash.js';
import { canonical } from './diff.js';
import { listingKey, type ListReport } from './upstreams/report.js';
import { mergeReport, sameGroups } from './upstreams/merge-report.js';
import { restated } from './upstreams/restate.js';
import type { ChangedList } from '../session/events.js';
import type { SnapshotSync } from './snapshot-sync.js';
import type { CatalogSnapshot, UpstreamState } from './types.js';
import { configOf } from '../lib/config.js';
import { upstreamConfigs, UPSTREAMS_KEY, validateUpstreams } from './upstreams/config.js';
import type { UpstreamConfig } from './upstreams/schema.js';
import type { UpstreamsTable } from './upstreams-table.js';
import type { Mutate } from './versioned-writes.js';

/** Storage key of the upstream list the admin API last gave this object (`{raw: null}`: the UPSTREAMS var). */
const CONFIG_KEY = 'upstreams-config';

/** The state with the groups configured now, and no others (undefined: open to everyone). */
function guarded<T extends { groups?: string[] }>(state: T, groups: readonly string[] | undefined): T {
  const { groups: _listed, ...rest } = state;
  return (groups ? { ...rest, groups: [...groups] } : rest) as T;
}

const enabledById = (list: UpstreamConfig[]) => new Map(list.filter((u) => u.enabled).map((u) => [u.id, u]));

export class UpstreamListings {
  constructor(
    private readonly env: Env,
    private readonly storage: DurableObjectStorage,
    private readonly upstreamRows: UpstreamsTable,
    private readonly sync: SnapshotSync,
    private readonly mutate: Mutate,
  ) {}

  /**
   * Every configured upstream's last listing and health, guarded by the groups configured now: a
   * listing's own copy of them may be older (it was made from the configuration its object read).
   * In the configured order: the first upstream listing a name is the one served it (compiled.ts).
   */
  async upstreams(): Promise<UpstreamState[]> {
    const configured = await this.configured();
    const rows = new Map(this.upstreamRows.all().map((u) => [u.id, u]));
    return [...configured.values()].flatMap((c) => {
      const row = rows.get(c.id);
      return row ? [guarded(row, c.groups)] : [];
    });
  }

  /**
   * The upstreams configured and enabled now, by id, in their configured order. Who may see an
   * upstream is decided here, so this reads no copy that can be older than the last change: the list
   * the admin API gave this object (setUpstreams), else KV or the UPSTREAMS var, read fresh.
   */
  private async configured(): Promise<Map<string, UpstreamConfig>> {
    const set = await this.storage.get<{ raw: string | null }>(CONFIG_KEY);
    if (set === undefined) return enabledById(await upstreamConfigs(this.env, true));
    const raw = set.raw ?? configOf(this.env).upstreamsJson;
    // Parsed once per list, not on every report or snapshot.
    if (this.parsed?.raw !== raw) this.parsed = { raw, byId: enabledById(validateUpstreams(this.env, raw)) };
    return this.parsed.byId;
  }

  private parsed: { raw: string; byId: Map<string, UpstreamConfig> } | undefined;

  /**
   * A new upstream list from the admin API (`null`: back to the UPSTREAMS var), kept here and then
   * in KV (for the isolates and the upstreams' objects), both under this object's lock, so two
   * changes at once land in the same order in both; then reconciled: upstreams no longer configured
   * are dropped and the rest re-guarded by their groups and re-filtered by their allow, deny and
   * aliases at once. Throws UpstreamConfigError, storing nothing, when it is bad. Safe to repeat
   * after a failure.
   */
  async setUpstreams(raw: string | null): Promise<{ removed: string[] }> {
    validateUpstreams(this.env, raw ?? configOf(this.env).upstreamsJson);
    return this.mutate(async () => {
      await this.storage.put(CONFIG_KEY, { raw });
      await (raw === null ? this.env.PROMPTS.delete(UPSTREAMS_KEY) : this.env.PROMPTS.put(UPSTREAMS_KEY, raw));
      return this.reconciled();
    });
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
      const configured = await this.configured();
      // The new rows, by upstream: saved together with the change they make (below), never before it.
      const rows = new Map<string, UpstreamState>();
      for (const reported of reports) {
        const config = configured.get(reported.id);
        // Not configured (removed since the reporter read its list): nothing to show, and a row kept
        // for it would be announced now and again when the cron removes it. Made under a
        // configuration older than this object's (another prefix, allow, deny or aliases): its names
        // are stale, and the upstream's next listing is not.
        if (
          !config ||
          config.prefix !== reported.prefix ||
          (reported.configKey ?? listingKey(config)) !== listingKey(config)
        )
          continue;
        // Guarded as configured here, whatever configuration the reporting object read.
        const { configKey: _key, ...listing } = reported;
        const r = guarded(listing, config?.groups);
        const digest = r.prompts ? await sha256Hex(canonical(r.prompts)) : undefined;
        const merged = mergeReport(rows.get(r.id) ?? this.upstreamRows.get(r.id), r, digest, stamp);
        rows.set(r.id, merged.state);
        for (const l of merged.lists) lists.add(l);
        changed ||= merged.changed;
        flipped ||= merged.flipped;
      }
      const save = () => rows.forEach((state) => this.upstreamRows.save(state));
      if (!changed && !flipped) {
        save();
        return { changed };
      }
      return { changed, snapshot: (await this.sync.write([...lists].sort(), save, changed)).snapshot };
    });
  }

  /**
   * Drops the listings of upstreams no longer configured and re-guards and re-filters the rest, announcing the change.
   * Looked at first without the writer's lock: the cron asks every minute, and almost always nothing
   * differs, so the other calls of the writer are not held up for it.
   */
  async reconcileUpstreams(): Promise<{ removed: string[] }> {
    if (!(await this.plan()).lists.size) return { removed: [] };
    return this.mutate(() => this.reconciled());
  }

  /**
   * reconcileUpstreams under the lock: a removed, moved, re-grouped or re-filtered upstream is a change of who sees
   * what. A kept listing is brought under the allow, deny and aliases in force (restate.ts): the last good listing
   * of a failing upstream is not replaced until it recovers, and its names must agree with what get serves.
   */
  private async reconciled(): Promise<{ removed: string[] }> {
    const { removed, lists, apply } = await this.plan();
    if (lists.size) await this.sync.write([...lists].sort(), () => apply.forEach((f) => f()));
    return { removed };
  }

  /** What reconciling would change, and how (not applied). */
  private async plan(): Promise<{ removed: string[]; lists: Set<ChangedList>; apply: (() => void)[] }> {
    const configured = await this.configured();
    const { separator } = configOf(this.env);
    const removed: string[] = [];
    const lists = new Set<ChangedList>();
    // What changes, applied with the change it makes (sync.write's transaction), so a failure before
    // it is published leaves the rows as they were and a retry finds the same work to do.
    const apply: (() => void)[] = [];
    for (const row of this.upstreamRows.all()) {
      const config = configured.get(row.id);
      // Gone, or its names carry an old prefix: gone until the upstream is listed under the new one.
      const gone = !config || row.prefix !== config.prefix;
      if (!config) removed.push(row.id);
      // Allow, deny and aliases rule its prompts only; its groups rule its skills too.
      const renamed = gone ? undefined : await restated(row, config, separator);
      const regrouped = gone || !sameGroups(row.groups, config.groups);
      if (!gone && !renamed && !regrouped) continue;
      if (gone) apply.push(() => this.upstreamRows.delete(row.id));
      else {
        const next = guarded(renamed ?? row, config.groups);
        apply.push(() => this.upstreamRows.save(next));
      }
      lists.add('prompts');
      if (regrouped && row.skills?.length) lists.add('skills');
    }
    return { removed, lists, apply };
  }
}
