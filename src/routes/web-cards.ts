/**
 * What the catalog pages show of the viewer's view without calling a prompt: the prompts it may
 * see (cards, with their week of use) and one prompt's last change and history. The calls that
 * run a prompt (preview, completions) are web-calls.ts's; upstream health is web-health.ts's.
 */
import type { View } from '../catalog/catalog.js';
import { catalogWriter } from '../catalog/stubs.js';
import { bounded, STATUS_CALL_MS } from '../lib/bounded.js';
import { dailyUse } from '../usage/query.js';
import type { HistoryData, PromptCard } from '../web/types.js';

const DAYS = 7;

/**
 * Uses per prompt and UTC day (usage/query.ts), kept per isolate for the hour (pages
 * are cached per hour too); undefined when the store could not be read in time. A failed read is
 * forgotten at once: kept, it would blank every sparkline of this isolate until the hour ends.
 */
let usageMemo: { hour: number; use: Promise<Map<string, number[]> | undefined> } | undefined;
export const utcHour = () => Math.floor(Date.now() / 3_600_000);
function usage(env: Env): Promise<Map<string, number[]> | undefined> {
  const hour = utcHour();
  if (usageMemo?.hour !== hour) {
    const memo: NonNullable<typeof usageMemo> = {
      hour,
      // Bounded as /status's figures are: a usage store that hangs leaves the cards without figures, not the page waiting.
      use: bounded(dailyUse(env, DAYS), STATUS_CALL_MS).catch(() => {
        if (usageMemo === memo) usageMemo = undefined;
        return undefined;
      }),
    };
    usageMemo = memo;
  }
  return usageMemo.use;
}

/**
 * What the view serves under a name (view-lookup.ts `served`): the local record or the upstream's
 * listing entry, and where it comes from (`local` or the upstream's id).
 */
export function servedAs(view: View, name: string) {
  const e = view.served(name);
  if (!e) return undefined;
  return 'local' in e
    ? { record: e.local.record, local: e.local.record, source: 'local' }
    : { record: e.remote.prompt, local: undefined, source: e.remote.prompt.origin.upstream };
}

function cardOf(view: View, name: string, use: ReadonlyMap<string, number[]> | undefined): PromptCard {
  const served = servedAs(view, name);
  const r = served?.record;
  const local = served?.local;
  return {
    name,
    title: r?.title,
    description: r?.description,
    tags: local?.tags ?? [],
    source: served?.source ?? 'local',
    // Counted per owner where a name has several (view-lookup.ts usageKey): the one this viewer is served.
    use: use ? (use.get(view.usageKey(name) ?? name) ?? []) : undefined,
  };
}

/**
 * Whether the cards carry their week of use. Without it (the store did not answer) they show none,
 * and their page must not be kept anywhere (web-cache.ts): the next request reads usage again.
 */
interface WithUse {
  readonly usageKnown: boolean;
}

/** Every prompt the view holds, as cards with their week of use. */
export async function cardsOf(env: Env, view: View): Promise<WithUse & { cards: PromptCard[] }> {
  const use = await usage(env);
  return { cards: view.names().map((n) => cardOf(view, n, use)), usageKnown: use !== undefined };
}

/** One prompt's card, or undefined when the view does not hold it (exactly like an unknown one). */
export async function cardFor(
  env: Env,
  view: View,
  name: string,
): Promise<(WithUse & { card: PromptCard }) | undefined> {
  if (!view.has(name)) return undefined;
  const use = await usage(env);
  return { card: cardOf(view, name, use), usageKnown: use !== undefined };
}

/** The most versions a prompt's page lists: every version is kept, and a prompt published on every commit has thousands. */
export const HISTORY_SHOWN = 50;

/**
 * When a prompt last changed (its latest version) and, for admins, its newest HISTORY_SHOWN versions
 * (the admin API pages through the rest). A live extra like upstream health (web-health.ts): a writer
 * that fails or does not answer within /status's bound leaves both unknown, `known: false`, and the
 * page is then not kept (web-cache.ts), so the next request asks again.
 */
export async function changesOf(
  env: Env,
  view: View,
  name: string,
  admin: boolean,
): Promise<{ changed: string | undefined; history: HistoryData | 'unknown' | undefined; known: boolean }> {
  const served = servedAs(view, name);
  const local = served?.local;
  if (!local) {
    const state = view.compiled.snapshot.upstreams?.find((u) => u.id === served?.source);
    return { changed: state?.lastSuccess ?? undefined, history: undefined, known: true };
  }
  // Newest first, and only as many as the page shows: an anonymous page shows the newest one's time alone.
  const page = { limit: admin ? HISTORY_SHOWN : 1, facts: true };
  const read = await bounded(catalogWriter(env).history(local.name, page), STATUS_CALL_MS).catch(() => undefined);
  if (!read) return { changed: undefined, history: admin ? 'unknown' : undefined, known: false };
  const rows = read.history.map((v) => ({ version: v.version, createdAt: v.createdAt, by: v.by, deleted: v.deleted }));
  // Versions are numbered from 1 without gaps (versions-table.ts `add`): those before the oldest shown are the rest.
  const older = read.next === undefined ? 0 : read.next - 1;
  return {
    changed: rows.at(-1)?.createdAt,
    history: admin ? { rows, older, recordName: local.name } : undefined,
    known: true,
  };
}
