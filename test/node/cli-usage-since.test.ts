/**
 * `promptgate usage --since` durations as the CLI sends them: epoch ms back from now, never a
 * negative number the API would refuse, however long the duration the CLI accepts.
 */
import { describe, expect, it } from 'vitest';
import { sinceParam } from '../../cli/usage.js';

describe('--since', () => {
  const now = Date.UTC(2026, 10, 28);
  it('turns a duration into epoch ms back from now, and passes anything else through', () => {
    expect(sinceParam('24h', now)).toBe(String(now - 86_400_000));
    expect(sinceParam('90m', now)).toBe(String(now - 90 * 60_000));
    expect(sinceParam('2026-11-01', now)).toBe('2026-11-01');
    expect(sinceParam(undefined, now)).toBeUndefined();
  });
  it('sends a duration reaching before 1970 as 0, not a negative epoch', () => {
    for (const d of ['30000d', '999999d', '999999h']) expect(sinceParam(d, now), d).toBe('0');
  });
});
