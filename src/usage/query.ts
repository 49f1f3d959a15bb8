/**
 * Reading usage back (docs/observability.md, "Usage"): the admin API, the catalog page's sparklines
 * and /status all ask the UsageStore through here, so none of them knows its tables. Counts are
 * kept per UTC hour: `since` selects whole hours, from the hour that contains it.
 */
import { HOUR_MS } from './store.js';
import { usageStore } from './stub.js';

/**
 * One grouped count. `key` is what the rows are grouped by: the prompt name (`by: 'prompt'`) or the
 * client as `name/version` (`unknown` when the client did not name itself). `method` is
 * `prompts/get`, `completion/complete` or the mirror's `tools/call`; `era` is `legacy` or `modern`; `outcome` is `ok` or the
 * call's `error.type` (the JSON-RPC code as a string, `-32602`, or the HTTP status of a failed request, `404`).
 */
export interface UsageRow {
  key: string;
  method: string;
  era: string;
  outcome: string;
  count: number;
}

const hourOf = (ms: number) => Math.floor(ms / HOUR_MS);

/** The most groups one answer lists; the totals count the rest too. */
export const MAX_USAGE_ROWS = 1_000;

/** Every count since a time: by method, and by outcome (`ok`, or failed). */
export interface UsageTotals {
  count: number;
  ok: number;
  failed: number;
  byMethod: Record<string, number>;
}

/**
 * Counts since `since` (epoch ms), grouped by prompt or client, method, era and outcome, largest first
 * (at most MAX_USAGE_ROWS groups: `truncated` says some were left out), with the totals of them all.
 */
export async function usageSince(
  env: Env,
  opts: { since: number; by: 'prompt' | 'client' },
): Promise<{ rows: UsageRow[]; truncated: boolean; totals: UsageTotals }> {
  const { rows, totals: sums } = await usageStore(env).report(hourOf(opts.since), opts.by, MAX_USAGE_ROWS + 1);
  const totals: UsageTotals = { count: 0, ok: 0, failed: 0, byMethod: {} };
  for (const r of sums) {
    totals.count += r.count;
    if (r.outcome === 'ok') totals.ok += r.count;
    else totals.failed += r.count;
    totals.byMethod[r.method] = (totals.byMethod[r.method] ?? 0) + r.count;
  }
  return { rows: rows.slice(0, MAX_USAGE_ROWS), truncated: rows.length > MAX_USAGE_ROWS, totals };
}

/**
 * Uses (prompts/get and the mirror's tools/call, every outcome) per prompt for each of the last `days` UTC days, oldest first
 * and today last; a prompt not asked for in that time has no entry.
 */
export async function dailyUse(env: Env, days: number, now = Date.now()): Promise<Map<string, number[]>> {
  const today = Math.floor(now / (24 * HOUR_MS));
  const first = today - days + 1;
  const out = new Map<string, number[]>();
  for (const { prompt, day, count } of await usageStore(env).daily(first * 24)) {
    if (day < first || day > today) continue;
    let series = out.get(prompt);
    if (!series) out.set(prompt, (series = new Array<number>(days).fill(0)));
    series[day - first] = count;
  }
  return out;
}

/** Failed /mcp requests since `since` (epoch ms) by `error.type` (`-32602`, `404`, …): only /mcp is counted. */
export async function errorsSince(env: Env, since: number): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const row of await usageStore(env).errors(hourOf(since))) out[row.class] = row.count;
  return out;
}
