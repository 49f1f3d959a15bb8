/**
 * GET /admin/usage: usage counts for operators (docs/observability.md, "Usage"), grouped by prompt
 * or by client, from the UsageStore. Counts are hourly, so `from` (the start of the hour that holds
 * `since`) says which hours the answer covers.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../env.js';
import { usageSince, type UsageRow, type UsageTotals } from '../usage/query.js';
import { HOUR_MS } from '../usage/store.js';
import { ApiError } from './api-error.js';

/** The default window: the last 24 hours. */
const DEFAULT_WINDOW_MS = 24 * HOUR_MS;

/** Whether a month has this day: Date.parse rolls a day it lacks over (2026-02-30 is March 2). */
const dayExists = (y: string, m: string, d: string) =>
  Number(d) <= new Date(Date.UTC(Number(y), Number(m), 0)).getUTCDate();

/** `since` as epoch ms: digits are epoch ms, anything else must be an ISO 8601 date or date-time. */
export function parseSince(raw: string | undefined, now: number): number {
  if (raw === undefined || raw === '') return now - DEFAULT_WINDOW_MS;
  const date = /^(\d{4})-(\d{2})-(\d{2})([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.exec(raw);
  const ms = /^\d{1,15}$/.test(raw)
    ? Number(raw)
    : date && dayExists(date[1]!, date[2]!, date[3]!)
      ? Date.parse(raw)
      : NaN;
  if (!Number.isFinite(ms))
    throw new ApiError(400, 'invalid_since', 'since must be an ISO 8601 date (2026-11-23T00:00:00Z) or epoch ms');
  return ms;
}

/** The answer of GET /admin/usage (the CLI reads it too). */
export interface UsageAnswer {
  /** `since` as asked (or its default, 24 hours ago), ISO. */
  since: string;
  /** The start of the first hour counted: counts are hourly. */
  from: string;
  by: 'prompt' | 'client';
  /** Largest first, at most MAX_USAGE_ROWS (usage/query.ts). */
  rows: UsageRow[];
  /** Present (true) when groups were left out of `rows`; `totals` counts them all. */
  truncated?: true;
  totals: UsageTotals;
}

export const adminUsage = new Hono<AppEnv>();

adminUsage.get('/', async (c) => {
  const since = parseSince(c.req.query('since'), Date.now());
  const by = c.req.query('by') ?? 'prompt';
  if (by !== 'prompt' && by !== 'client') throw new ApiError(400, 'invalid_by', 'by must be "prompt" or "client"');
  const { rows, truncated, totals } = await usageSince(c.env, { since, by });
  const answer: UsageAnswer = {
    since: new Date(since).toISOString(),
    from: new Date(Math.floor(since / HOUR_MS) * HOUR_MS).toISOString(),
    by,
    rows,
    ...(truncated && { truncated }),
    totals,
  };
  return c.json(answer);
});
