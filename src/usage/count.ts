/**
 * Usage counting (docs/observability.md, "Usage"): reads a finished request's record and adds it to
 * this isolate's tally; flush.ts takes the tally to the UsageStore in the background. On the warm
 * path this is a key string and a Map increment per counted call, and nothing when no call counts.
 */
import type { Outcome } from '../lib/record.js';
import type { RequestScope } from '../lib/scope.js';
import { arm, tally } from './flush.js';
import { HOUR_MS } from './store.js';

const GET = 'prompts/get';
const COMPLETE = 'completion/complete';

export function countUsage(scope: RequestScope, outcome: Outcome): void {
  if (!scope.cfg.usage) return;
  const record = scope.record;
  const hour = Math.floor(record.start / HOUR_MS);
  const httpFailed = outcome.status >= 400;
  let errors = 0;
  let counted = false;
  for (const call of record.calls) {
    const code = call.errorCode;
    if (code !== undefined) {
      tally.error(hour, String(code));
      errors += 1;
    }
    if (call.method !== GET && call.method !== COMPLETE) continue;
    const client = record.client ? `${record.client.name}/${record.client.version}` : 'unknown';
    const result = code !== undefined ? String(code) : httpFailed ? `http_${outcome.status}` : 'ok';
    tally.add(hour, call.method, call.prompt ?? '', client, record.era ?? 'unknown', result);
    counted = true;
  }
  if (httpFailed && errors === 0) tally.error(hour, `http_${outcome.status}`);
  if (counted || httpFailed || errors > 0) arm(scope.env, scope.cfg.usageFlushMs, scope.waitUntil);
}
