/**
 * The official conformance scenarios that only a server with tools can pass, against a real
 * `wrangler dev` with the tools mirror on (TOOLS_MIRROR=on, docs/tools-mirror.md) and the
 * conformance fixture prompts published as tools. The main runs (conformance.test.ts) hold
 * these scenarios in their baseline because a prompts-only gateway has no tools/list; here each
 * must pass whole, with no baseline at all:
 *
 * - `tools-list`: every mirrored prompt is a valid tool;
 * - `http-header-validation` (SEP-2243): Mcp-Method and Mcp-Name checked against tools/list and
 *   tools/call bodies, -32020 on a mismatch;
 * - `caching` (SEP-2549): the caching hints of tools/list beside the other lists'.
 *
 * Each runs on its own (`--scenario`), on both suite builds that have it and, on the 0.2.0 alpha,
 * at its default wire and at 2026-07-28.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { counts, runSuite, type Build, type SuiteRun } from '../conformance/suite.js';
import { PROJECT_ROOT, startGateway, type Gateway } from '../helpers/wrangler-dev.js';

interface MirrorRun {
  label: string;
  build: Build;
  specVersion?: string;
  scenarios: string[];
}

const NEXT = ['tools-list', 'http-header-validation', 'caching'];
const RUNS: MirrorRun[] = [
  { label: '0.1.16', build: 'current', scenarios: ['tools-list'] },
  { label: '0.2.0-alpha.12', build: 'next', scenarios: NEXT },
  { label: '0.2.0-alpha.12 --spec-version 2026-07-28', build: 'next', specVersion: '2026-07-28', scenarios: NEXT },
];

let gw: Gateway;
/** `${run label} ${scenario}` → the suite's run of that one scenario. */
const results = new Map<string, SuiteRun>();

beforeAll(async () => {
  gw = await startGateway({
    promptsDir: join(PROJECT_ROOT, 'test/fixtures/conformance/prompts'),
    vars: { TOOLS_MIRROR: 'on' },
  });
  // One scenario at a time: each is a handful of requests, and the suites open many connections.
  for (const r of RUNS) {
    for (const scenario of r.scenarios) {
      const run = await runSuite({
        build: r.build,
        url: gw.mcpUrl,
        specVersion: r.specVersion,
        baselines: [],
        scenario,
      });
      results.set(`${r.label} ${scenario}`, run);
      const c = counts(run.scenarios.get(scenario) ?? []);
      console.log(
        `[conformance mirror ${r.label}] ${scenario}: ${c.passed} passed, ${c.failed} failed, exit ${run.exitCode}`,
      );
    }
  }
}, 400_000);

afterAll(async () => {
  await gw?.stop();
});

describe.each(RUNS)('official conformance with TOOLS_MIRROR=on, $label', (r) => {
  it.each(r.scenarios)('%s passes whole, with no baseline', (scenario) => {
    const run = results.get(`${r.label} ${scenario}`)!;
    expect(run.expected).toEqual([]);
    expect(run.exitCode, run.output.slice(-4000)).toBe(0);
    const checks = run.scenarios.get(scenario);
    expect(checks, `scenario ${scenario} did not run`).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: expect.any(String), status: 'SUCCESS' })]),
    );
    const bad = checks!.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
    expect(bad, JSON.stringify(bad, null, 2)).toEqual([]);
  });
});
