/**
 * A listing reported for an upstream that is not configured (removed since its object, or a cold
 * isolate with an older list, read the configuration) changes nothing: no generation, no
 * list_changed, no row for the cron to delete and announce again. A configured upstream's report
 * still does.
 */
import { env } from 'cloudflare:test';
import { beforeAll, expect, it } from 'vitest';
import { readGeneration } from '../../src/catalog/store.js';
import { catalogWriter } from '../../src/catalog/stubs.js';
import { forgetUpstreamConfig, UPSTREAMS_KEY } from '../../src/catalog/upstreams/config.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { publish } from '../helpers/worker.js';

const report = (id: string) => ({
  id,
  prefix: id,
  prompts: [{ name: `${id}.plan`, origin: { upstream: id, name: 'plan' } }],
});

beforeAll(async () => {
  await publish(FIXTURE_PROMPTS);
  await env.PROMPTS.put(UPSTREAMS_KEY, JSON.stringify([{ id: 'kept', url: 'https://kept.example/mcp' }]));
  forgetUpstreamConfig(env);
});

it('a report from an upstream no longer configured is dropped: nothing is announced', async () => {
  const before = await readGeneration(env.PROMPTS);
  expect(await catalogWriter(env).upstreamsReported([report('ghost')])).toEqual({ changed: false });
  expect(await readGeneration(env.PROMPTS)).toBe(before);
  // Nothing was kept for the cron's reconcile to remove (and announce) later.
  expect(await catalogWriter(env).reconcileUpstreams()).toEqual({ removed: [] });
  expect(await readGeneration(env.PROMPTS)).toBe(before);
});

it("a configured upstream's report is a change, as before", async () => {
  const before = await readGeneration(env.PROMPTS);
  const done = await catalogWriter(env).upstreamsReported([report('kept')]);
  expect(done.changed).toBe(true);
  expect(await readGeneration(env.PROMPTS)).toBeGreaterThan(before);
});
