/**
 * Usage rows to Workers Analytics Engine, when a dataset is bound as USAGE_EVENTS. The platform
 * takes at most 25 data points per invocation and a flush runs inside one request's invocation, so
 * a flush writes the 24 largest rows as they are and merges the rest into the 25th: every count
 * still reaches AE, and a dimension the merged rows do not share reads `*`.
 */
import type { UsageTuple } from './store.js';

/** Analytics Engine's limit on writeDataPoint calls per invocation. */
export const MAX_DATA_POINTS = 25;
/** Stands for a dimension the rows merged into the last data point do not share. */
export const MIXED = '*';
/** AE indexes are at most 96 bytes; prompt names are shorter (64), unknown names asked for may not be. */
const MAX_INDEX_BYTES = 96;

/** The slice of the binding this module uses. */
export type Dataset = Pick<AnalyticsEngineDataset, 'writeDataPoint'>;

/** The optional binding (wrangler.toml shows how to add it). */
export function datasetOf(env: Env): Dataset | undefined {
  return (env as { USAGE_EVENTS?: Dataset }).USAGE_EVENTS;
}

function indexOf(prompt: string): string {
  let index = prompt;
  while (new TextEncoder().encode(index).length > MAX_INDEX_BYTES) index = index.slice(0, -1);
  return index;
}

/** Writes one flush's rows: blobs [method, prompt, client, era, outcome], doubles [count], index prompt. */
export function writeUsageEvents(dataset: Dataset, rows: readonly UsageTuple[]): number {
  const sorted = [...rows].sort((a, b) => b[6] - a[6]);
  const points: [string, string, string, string, string, number][] = sorted
    .slice(0, MAX_DATA_POINTS)
    .map(([, method, prompt, client, era, outcome, count]) => [method, prompt, client, era, outcome, count]);
  if (sorted.length > MAX_DATA_POINTS) {
    const last = points[MAX_DATA_POINTS - 1]!;
    for (const [, method, prompt, client, era, outcome, count] of sorted.slice(MAX_DATA_POINTS)) {
      const dims = [method, prompt, client, era, outcome];
      for (let i = 0; i < 5; i++) if (last[i] !== dims[i]) last[i] = MIXED;
      last[5] += count;
    }
  }
  for (const [method, prompt, client, era, outcome, count] of points)
    dataset.writeDataPoint({
      blobs: [method, prompt, client, era, outcome],
      doubles: [count],
      indexes: [indexOf(prompt)],
    });
  return points.length;
}
