/**
 * The isolate tally and the Analytics Engine writer, as plain objects: the 25-data-point cap (with a
 * recording dataset: the local AE binding records nothing it could be asked about), the bound on
 * distinct rows, merging a failed batch back, and the USAGE* vars.
 */
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/lib/config-vars.js';
import { configOf } from '../../src/lib/config.js';
import { MAX_DATA_POINTS, MIXED, writeUsageEvents, type Dataset } from '../../src/usage/analytics.js';
import type { UsageTuple } from '../../src/usage/store.js';
import { OTHER } from '../../src/usage/hour-clients.js';
import { MAX_ROWS, Tally } from '../../src/usage/tally.js';

function recording(): Dataset & { points: AnalyticsEngineDataPoint[] } {
  const points: AnalyticsEngineDataPoint[] = [];
  return { points, writeDataPoint: (p) => void points.push(p!) };
}

const row = (prompt: string, count: number, client = 'a/1', outcome = 'ok'): UsageTuple => [
  1,
  'prompts/get',
  prompt,
  client,
  'modern',
  outcome,
  count,
];

describe('Analytics Engine writes', () => {
  it('writes one data point per row when there are at most 25', () => {
    const ds = recording();
    const rows = Array.from({ length: MAX_DATA_POINTS }, (_, i) => row(`p${i}`, i + 1));
    expect(writeUsageEvents(ds, rows)).toBe(25);
    expect(ds.points).toHaveLength(25);
    expect(ds.points[0]).toEqual({
      blobs: ['prompts/get', 'p24', 'a/1', 'modern', 'ok'],
      doubles: [25],
      indexes: ['p24'],
    });
  });

  it('keeps the 24 largest rows and merges the rest into the 25th, losing no count', () => {
    const ds = recording();
    const rows = Array.from({ length: 40 }, (_, i) => row(`p${i}`, 100 - i, i % 2 ? 'b/2' : 'a/1'));
    rows.push(row('p0', 1, 'a/1', '-32602'));
    expect(writeUsageEvents(ds, rows)).toBe(MAX_DATA_POINTS);
    expect(ds.points).toHaveLength(MAX_DATA_POINTS);
    const total = (ps: AnalyticsEngineDataPoint[]) => ps.reduce((n, p) => n + p.doubles![0]!, 0);
    expect(total(ds.points)).toBe(rows.reduce((n, r) => n + r[6], 0));
    expect(ds.points.slice(0, 24).map((p) => p.blobs![1])).toEqual(rows.slice(0, 24).map((r) => r[1 + 1]));
    // Merged rows share method and era; prompts, clients and outcomes differ.
    expect(ds.points[24]!.blobs).toEqual(['prompts/get', MIXED, MIXED, 'modern', MIXED]);
    expect(ds.points[24]!.indexes).toEqual([MIXED]);
  });

  it('cuts an index to 96 bytes', () => {
    const ds = recording();
    writeUsageEvents(ds, [row('é'.repeat(100), 1)]);
    expect(new TextEncoder().encode(ds.points[0]!.indexes![0] as string).length).toBeLessThanOrEqual(96);
  });
});

describe('the isolate tally', () => {
  it('adds into one row per tuple', () => {
    const t = new Tally();
    for (let i = 0; i < 3; i++) t.add(1, 'prompts/get', 'greet', 'a', '1', 'modern', 'ok');
    t.add(1, 'prompts/get', 'greet', 'a', '1', 'legacy', 'ok');
    t.error(1, '-32602');
    t.error(1, '-32602');
    const batch = t.batch();
    expect(batch.usage).toEqual([
      [1, 'prompts/get', 'greet', 'a/1', 'modern', 'ok', 3],
      [1, 'prompts/get', 'greet', 'a/1', 'legacy', 'ok', 1],
    ]);
    expect(batch.errors).toEqual([[1, '-32602', 2]]);
  });

  it('keeps prompts, client names and versions apart, whatever characters they hold', () => {
    const t = new Tally();
    t.add(1, 'prompts/get', 'a|b', 'c', '1', 'modern', 'ok');
    t.add(1, 'prompts/get', 'a', 'b|c', '1', 'modern', 'ok');
    t.add(1, 'prompts/get', 'a', 'b', '|c/1', 'modern', 'ok');
    t.add(1, 'prompts/get', 'a', undefined, undefined, 'modern', 'ok');
    expect(t.batch().usage.map((r) => `${r[2]} ${r[3]}`)).toEqual(['a|b c/1', 'a b|c/1', 'a b/|c/1', 'a unknown']);
  });

  it("folds a new tuple's client into (other) once it holds MAX_ROWS rows, keeping its prompt and every call", () => {
    const t = new Tally();
    for (let i = 0; i < MAX_ROWS; i++) t.add(1, 'prompts/get', `p${i}`, `c${i}`, '1', 'modern', 'ok');
    // Past the bound, new clients of one prompt share its (other) row; a known row still counts as itself.
    for (let i = 0; i < 50; i++) t.add(1, 'prompts/get', 'late', `late-${i}`, '1', 'modern', 'ok');
    t.add(1, 'prompts/get', 'p7', 'c7', '1', 'modern', 'ok');
    const rows = t.batch().usage;
    expect(rows.length).toBe(MAX_ROWS + 1);
    expect(rows.at(-1)).toEqual([1, 'prompts/get', 'late', OTHER, 'modern', 'ok', 50]);
    expect(rows.find((r) => r[2] === 'p7')).toEqual([1, 'prompts/get', 'p7', 'c7/1', 'modern', 'ok', 2]);
    expect(rows.reduce((n, r) => n + r[6], 0)).toBe(MAX_ROWS + 51);
  });
});

describe('usage configuration', () => {
  const cfg = (vars: Record<string, string>) => configOf({ ...env, ...vars });

  it('defaults to counting, a 10 s flush and 90 days of rows', () => {
    const c = cfg({ USAGE: '', USAGE_FLUSH_MS: '', USAGE_RETENTION_DAYS: '' });
    expect([c.usage, c.usageFlushMs, c.usageRetentionDays]).toEqual([true, 10_000, 90]);
    expect(cfg({ USAGE: 'off' }).usage).toBe(false);
  });

  it('names the var and its bounds when a value is bad', () => {
    expect(() => cfg({ USAGE: 'no' })).toThrow(new ConfigError('USAGE must be "on" or "off", got "no"'));
    expect(() => cfg({ USAGE_FLUSH_MS: '5' })).toThrow(/USAGE_FLUSH_MS must be an integer in \[10, 25000\]/);
    // A flush runs in a waitUntil, which the runtime ends 30 s after the response.
    expect(() => cfg({ USAGE_FLUSH_MS: '60000' })).toThrow(/USAGE_FLUSH_MS/);
    expect(() => cfg({ USAGE_RETENTION_DAYS: '0' })).toThrow(/USAGE_RETENTION_DAYS must be an integer in \[1, 3650\]/);
    expect(() => cfg({ USAGE_RETENTION_DAYS: '7.5' })).toThrow(/USAGE_RETENTION_DAYS/);
  });
});
