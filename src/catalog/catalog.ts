/**
 * One catalog generation, compiled for serving (compiled.ts), and its views.
 *
 * Built once per generation per isolate. The Catalog is itself the whole
 * view (view.ts): admins', and everyone's when no prompt, skill or upstream
 * names a group, which costs one branch per request. Other views are made on first
 * use, one per view key (views.ts), and kept for the life of the generation.
 */
import { BoundedMap } from '../lib/memo.js';
import type { Principal } from '../lib/scope.js';
import { compile } from './compiled.js';
import type { CatalogSnapshot } from './types.js';
import { View } from './view.js';
import { ALL, groupsOfKey, viewKeyOf } from './views.js';

export type { ListKind } from './view.js';
export type { Route } from './view-lookup.js';
export { PROMPTS, View } from './view.js';

/** Distinct views kept per generation: far more than deployments have team combinations. */
const MAX_VIEWS = 1_000;

export class Catalog extends View {
  private readonly views = new BoundedMap<string, View>(MAX_VIEWS);
  private upstreamIdSet: ReadonlySet<string> | undefined;

  /**
   * @param provisional a merge made in this isolate ahead of the writer (cold
   * upstream path): it shares its base's generation, so its pages must never
   * be stored anywhere keyed by generation.
   */
  constructor(snapshot: CatalogSnapshot, provisional = false) {
    const compiled = compile(snapshot, provisional);
    super(compiled, compiled.groups.size ? ALL : '', null);
  }

  get snapshot(): CatalogSnapshot {
    return this.compiled.snapshot;
  }

  /** Whether any prompt, skill or upstream names a group: only then do principals see different things. */
  get grouped(): boolean {
    return this.compiled.groups.size > 0;
  }

  /** What this principal sees (undefined: the anonymous principal, no groups, not an admin). */
  viewFor(p: Principal | undefined): View {
    if (this.compiled.groups.size === 0) return this;
    const key = viewKeyOf(this.compiled.groups, p);
    if (key === ALL) return this;
    let v = this.views.get(key);
    if (!v) this.views.set(key, (v = new View(this.compiled, key, groupsOfKey(key))));
    return v;
  }

  /** Upstreams this generation has a listing for (healthy or stale). */
  upstreamIds(): ReadonlySet<string> {
    // From the listings, not the prefixes: several upstreams may be mounted without one.
    return (this.upstreamIdSet ??= new Set((this.snapshot.upstreams ?? []).map((u) => u.id)));
  }
}
