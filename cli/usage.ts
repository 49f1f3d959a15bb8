/**
 * `promptgate usage`: the gateway's usage counts (GET /admin/usage) as a table, or as the API's
 * JSON with --json. `--since` also takes a duration back from now (`90m`, `24h`, `7d`), turned
 * into epoch ms here; anything else goes to the gateway as is, which says what it accepts.
 */
import { UsageError, type AdminClient } from './api.js';
import { table } from './keys.js';

export const USAGE_USAGE =
  'usage: promptgate usage [--since <ISO date | epoch ms | 24h | 7d>] [--by prompt|client] [--json]';

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since` for the API: a duration (`24h`) becomes epoch ms; other values pass through. */
export function sinceParam(raw: string | undefined, now = Date.now()): string | undefined {
  const m = raw === undefined ? null : /^(\d{1,6})([mhd])$/.exec(raw);
  // Further back than 1970 is all of it: the API takes no negative epoch.
  return m ? String(Math.max(0, now - Number(m[1]) * UNIT_MS[m[2]!]!)) : raw;
}

export async function usageCommand(
  api: () => AdminClient,
  args: string[],
  opts: { since?: string; by?: string; json?: boolean },
  out: (s: string) => void,
): Promise<void> {
  if (args.length) throw new UsageError(USAGE_USAGE);
  if (opts.by !== undefined && opts.by !== 'prompt' && opts.by !== 'client')
    throw new UsageError(`--by must be prompt or client\n${USAGE_USAGE}`);
  const answer = await api().usage({ since: sinceParam(opts.since), by: opts.by });
  if (opts.json) return out(JSON.stringify(answer, null, 2));
  out(`usage since ${answer.from} (hourly), by ${answer.by}`);
  if (!answer.rows.length) return out('no calls counted');
  const rows = answer.rows.map((r) => [r.key, r.method, r.era, r.outcome, String(r.count)]);
  for (const l of table([answer.by.toUpperCase(), 'METHOD', 'ERA', 'OUTCOME', 'COUNT'], rows)) out(l);
  if (answer.truncated) out(`(the ${answer.rows.length} largest groups; the total below counts every call)`);
  const t = answer.totals;
  out(`total ${t.count}: ${t.ok} ok, ${t.failed} failed`);
}
