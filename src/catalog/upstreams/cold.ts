/**
 * The read path's cold-upstream branch (listMissing): the first page of any
 * list (catalog/listing.ts), a name the catalog does not know yet
 * (rpc/methods/route.ts, GET /prompts/{name}) and the catalog page (routes/web-cache.ts) list
 * never-listed upstreams from the Worker itself. It takes the caller's already-parsed Config; the upstream list
 * is the isolate's cached copy (config.ts).
 */
import type { RequestScope } from '../../lib/scope.js';
import { Catalog, type View } from '../catalog.js';
import { PROMPTS, type ListKind } from '../view.js';
import type { UpstreamState } from '../types.js';
import { adoptSnapshot } from '../store.js';
import { catalogWriter, upstreamStub } from '../stubs.js';
import type { UpstreamClient } from './client.js';
import { newClient } from './client-for.js';
import { cachedUpstreamConfigs, upstreamConfigs } from './config.js';
import type { UpstreamConfig } from './schema.js';
import { describeFault } from './errors.js';
import { reported, type ListReport } from './report.js';
import { listUpstream } from './skills.js';
import { log } from '../../lib/log.js';

/** What the cold path needs of the request scope (the rpc call context is one too). */
export type ColdQuery = Pick<RequestScope, 'env' | 'cfg' | 'waitUntil'>;

const afterResponse = () => new Promise<void>((r) => setTimeout(r, 0));
const tried = new Map<string, number>();
const RETRY_COLD_MS = 30_000;
/** A merged list served before the writer's snapshot reached this isolate. */
let pending: { base: number; merged: Catalog } | undefined;

/**
 * The cold path: upstreams that are configured but were never listed (a
 * fresh deploy, a new upstream) are listed now, in parallel, each within its
 * own timeout. When the merged list asked for (`kind`: prompts, skills, …) fits on the first page it is served at
 * once and the writer records it in the background (then this isolate
 * adopts the writer's snapshot); otherwise the request waits for the writer,
 * so cursors always belong to a published generation. An upstream that
 * failed here is not retried on the request path for 30 s (the poll goes on).
 */
export function listMissing(
  q: ColdQuery,
  catalog: Catalog,
  pageSize: number,
  kind: ListKind = PROMPTS,
): Catalog | Promise<Catalog> {
  // Until the writer's snapshot arrives, later first pages in this isolate see the same merged list.
  if (pending && pending.base === catalog.generation && fits(pending.merged, kind, pageSize)) return pending.merged;
  // Synchronous when nothing is missing (every warm first page): no promise on the hot path.
  const configs = cachedUpstreamConfigs(q.env);
  if (!configs) return upstreamConfigs(q.env).then(() => listMissing(q, catalog, pageSize, kind));
  if (configs.length === 0) return catalog;
  const now = Date.now();
  const known = catalog.upstreamIds();
  const missing = configs.filter((u) => u.enabled && !known.has(u.id) && (tried.get(u.id) ?? 0) <= now);
  if (missing.length === 0) return catalog;
  for (const u of missing) tried.set(u.id, now + RETRY_COLD_MS);
  return listNow(q, catalog, configs, missing, pageSize, kind);
}

/**
 * Whether the list asked for is one page of a merged catalog: then no cursor is minted in it. Its
 * generation is the one before the writer's, so a cursor minted there would page another list.
 */
const fits = (merged: Catalog, kind: ListKind, pageSize: number) => merged.itemsOf(kind).length <= pageSize;

/**
 * The upstreams in their configured order, as the writer's snapshot has them (upstream-listings.ts):
 * the first upstream listing a name is served it, so a merge here must not name another winner. One
 * no longer configured in this isolate's copy goes last.
 */
function inConfiguredOrder<T extends { id: string }>(states: T[], configs: readonly UpstreamConfig[]): T[] {
  const order = new Map(configs.map((u, i) => [u.id, i]));
  const rank = (s: T) => order.get(s.id) ?? configs.length;
  return states.sort((a, b) => rank(a) - rank(b));
}

async function listNow(
  q: ColdQuery,
  catalog: Catalog,
  configs: readonly UpstreamConfig[],
  missing: UpstreamConfig[],
  pageSize: number,
  kind: ListKind,
): Promise<Catalog> {
  const { env, waitUntil } = q;
  // Listed straight from this Worker: no object has to be created before the upstream is called.
  const { separator } = q.cfg;
  const clients: UpstreamClient[] = [];
  const reports = await Promise.all(
    missing.map(async (u): Promise<ListReport> => {
      // The object's own client (client-for.ts): the same headers, token and secrets cut from its errors.
      const client = newClient(u);
      clients.push(client);
      const { listing, error, skills } = await listUpstream(client, u);
      if (listing) return { ...reported(u, separator, listing), ...skills };
      return {
        id: u.id,
        prefix: u.prefix,
        error: describeFault(error),
        ...skills,
        ...(u.groups && { groups: u.groups }),
      };
    }),
  );
  // Then, after the response has gone: record the listings, close these sessions, and let each
  // upstream's object take over (its own session, change stream and poll; an unchanged listing
  // makes no new generation). Deferred a tick so none of it competes with building the response.
  const persisted = afterResponse().then(async () => {
    for (const c of clients) waitUntil(c.close());
    for (const u of missing)
      waitUntil(
        upstreamStub(env, u.id)
          .refresh(u.id)
          .catch(() => undefined),
      );
    const r = await catalogWriter(env).upstreamsReported(reports);
    return r.snapshot ? adoptSnapshot(env.PROMPTS, r.snapshot) : catalog;
  });
  const fresh = reports.filter((r) => r.prompts);
  if (fresh.length === 0) {
    waitUntil(persisted);
    return catalog;
  }
  const stamp = new Date().toISOString();
  const listed = fresh.map((r): UpstreamState => ({
    id: r.id,
    prefix: r.prefix,
    prompts: r.prompts!,
    ...(r.skills && { skills: r.skills }),
    ...(r.skillsHints && { skillsHints: r.skillsHints }),
    ...(r.hints && { hints: r.hints }),
    ...(r.groups && { groups: r.groups }),
    digest: '',
    ok: true,
    lastSuccess: stamp,
    lastError: null,
  }));
  const upstreams = inConfiguredOrder([...(catalog.snapshot.upstreams ?? []), ...listed], configs);
  const merged = new Catalog({ ...catalog.snapshot, upstreams }, true);
  if (fits(merged, kind, pageSize)) {
    const entry = { base: catalog.generation, merged };
    pending = entry;
    const settle = () => {
      if (pending === entry) pending = undefined;
    };
    waitUntil(
      persisted.then(
        settle,
        (e) => (settle(), log.warn('recording cold upstream listings failed', { error: String(e) })),
      ),
    );
    return merged;
  }
  return persisted;
}

/**
 * What `find` gives in the caller's view of `full`; when it gives nothing, never-listed upstreams are
 * listed (at any page size: the merged catalog is wanted whole) and it is asked again. For a name a
 * client may use without listing first (prompts/get, a skill, GET /prompts/{name}).
 */
export async function findListingMissing<T>(
  q: ColdQuery & Pick<RequestScope, 'principal'>,
  full: Catalog,
  find: (view: View) => T | undefined,
): Promise<{ view: View; found: T | undefined }> {
  const view = full.viewFor(q.principal);
  const found = find(view);
  if (found !== undefined) return { view, found };
  const merged = await listMissing(q, full, Number.MAX_SAFE_INTEGER);
  if (merged === full) return { view, found };
  const again = merged.viewFor(q.principal);
  return { view: again, found: find(again) };
}
