/**
 * The official MCP conformance suites against a real `wrangler dev`:
 * 0.1.x (2025-11-25 scenarios) and 0.2.0-alpha (adds 2026-07-28), the alpha
 * once at its default wires and once at 2026-07-28. Twice: direct, with the
 * fixture prompts (test/fixtures/conformance/prompts) published with
 * `promptgate push`, and through
 * the aggregator, with the same fixtures (and an input_required prompt, and
 * the fixture skill) served by an official-SDK upstream mounted without a prefix and no local
 * prompts at all.
 *
 * Each run uses the CLI's own baseline (expected-failures*.yaml: scenarios
 * for tools, the suite's fixture resources, tasks and the suite's diagnostic
 * tools, each with its reason; each target adds its own file), so any
 * other failure, or a baseline entry that starts passing,
 * fails the run. Every scenario that applies to a prompts server is then
 * asserted on its own: at least one check passed, none failed or warned.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { counts, runSuite, type Build, type SuiteRun } from '../conformance/suite.js';
import { conformanceUpstream } from '../helpers/conformance-upstream.js';
import { PROJECT_ROOT, startGateway, type Gateway } from '../helpers/wrangler-dev.js';

const execFileAsync = promisify(execFile);
const FIXTURES = join(PROJECT_ROOT, 'test/fixtures/conformance');
const PROMPTS = [
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
  'completion-complete',
];
/**
 * Skills (SEP-2640) and the resources they are served as: the fixture skill
 * (test/fixtures/conformance/prompts/skills/conformance-skill), published with
 * the prompts by `promptgate push` (direct) and served by the upstream
 * (through the aggregator). The CLI runs extension scenarios only without
 * --spec-version, and sep-2640-skills-directory skips (directoryRead is not
 * declared).
 */
const SKILLS = ['resources-list', 'sep-2640-skills-enumeration', 'sep-2640-skills-manifest'];
/** The resource scenarios of the 0.2.0 alpha that a skills server passes. */
const RESOURCES_NEXT = ['resources-list', 'sep-2164-resource-not-found'];

interface RunSpec {
  label: string;
  build: Build;
  specVersion?: string;
  baselines: string[];
  /** The scenarios of this run that apply to a prompts server. */
  applicable: string[];
}

const RUNS: RunSpec[] = [
  {
    label: '0.1.16',
    build: 'current',
    baselines: ['expected-failures.yaml'],
    applicable: [
      'server-initialize',
      'ping',
      'logging-set-level',
      ...PROMPTS,
      'dns-rebinding-protection',
      'resources-list',
    ],
  },
  {
    label: '0.2.0-alpha.12',
    build: 'next',
    baselines: ['expected-failures.yaml'],
    applicable: [
      'server-initialize',
      'server-session-lifecycle',
      'ping',
      'logging-set-level',
      ...PROMPTS,
      'dns-rebinding-protection',
      'server-stateless',
      'caching',
      ...new Set([...RESOURCES_NEXT, ...SKILLS]),
    ],
  },
  {
    label: '0.2.0-alpha.12 --spec-version 2026-07-28',
    build: 'next',
    specVersion: '2026-07-28',
    baselines: ['expected-failures.yaml', 'expected-failures-2026.yaml'],
    applicable: [...PROMPTS, 'dns-rebinding-protection', 'server-stateless', 'caching', ...RESOURCES_NEXT],
  },
];

/** Only through the aggregator: an upstream prompt answers input_required there. */
const AGGREGATOR_ONLY = 'input-required-result-non-tool-request';
/** Added to every run's baseline of one target: what that target cannot pass yet, each with its reason. */
const targetBaseline = (target: string) => `expected-failures-${target}.yaml`;
const excusedFor = (target: string) =>
  (parse(readFileSync(join(PROJECT_ROOT, 'test/conformance', targetBaseline(target)), 'utf8')) as { server: string[] })
    .server;

interface Target {
  name: 'direct' | 'aggregator';
  gateway?: Gateway;
  results: Map<string, SuiteRun>;
}

const targets: Target[] = [
  { name: 'direct', results: new Map() },
  { name: 'aggregator', results: new Map() },
];
let upstream: { url: string; close(): Promise<void> } | undefined;

function summary(t: Target, label: string, run: SuiteRun): string {
  let passed = 0;
  let failed = 0;
  const lines = [...run.scenarios].map(([name, checks]) => {
    const c = counts(checks);
    passed += c.passed;
    failed += c.failed;
    return `  ${c.failed ? '~' : '✓'} ${name}: ${c.passed} passed, ${c.failed} failed`;
  });
  const verdict = run.exitCode === 0 ? 'all in the baseline' : 'NOT all in the baseline';
  return [
    `[conformance ${t.name} ${label}] ${run.scenarios.size} scenarios, ${passed} checks passed, ${failed} failed or warned (${verdict}; baseline ${run.expected.length} entries), exit ${run.exitCode}`,
    `  ${run.command}`,
    ...lines,
  ].join('\n');
}

beforeAll(async () => {
  upstream = await conformanceUpstream(join(FIXTURES, 'prompts'), join(FIXTURES, 'prompts/skills'));
  const [direct, aggregator] = await Promise.all([
    startGateway({ promptsDir: join(FIXTURES, 'aggregator-local') }).then(async (gw) => {
      // The fixtures are authored as prompt files and published the way a user publishes them.
      const push = await execFileAsync(
        process.execPath,
        ['bin/promptgate.mjs', 'push', join(FIXTURES, 'prompts'), '--prune', '--url', gw.url, '--token', gw.adminToken],
        { cwd: PROJECT_ROOT },
      );
      console.log(`[conformance direct] promptgate push:\n${push.stdout}`);
      return gw;
    }),
    startGateway({
      promptsDir: join(FIXTURES, 'aggregator-local'),
      vars: {
        UPSTREAMS: JSON.stringify([{ id: 'conformance', url: upstream.url, prefix: '' }]),
        UPSTREAM_ALLOW_HTTP_LOOPBACK: 'true',
      },
    }),
  ]);
  targets[0]!.gateway = direct;
  targets[1]!.gateway = aggregator;
  // One suite run at a time per gateway (the suites open many connections), both gateways in parallel.
  await Promise.all(
    targets.map(async (t) => {
      for (const r of RUNS) {
        const run = await runSuite({
          build: r.build,
          url: t.gateway!.mcpUrl,
          specVersion: r.specVersion,
          baselines: [...r.baselines, targetBaseline(t.name)],
          mustPass: t.name === 'aggregator' ? [AGGREGATOR_ONLY] : [],
        });
        t.results.set(r.label, run);
        console.log(summary(t, r.label, run));
      }
    }),
  );
}, 400_000);

afterAll(async () => {
  await Promise.all(targets.map(async (t) => t.gateway?.stop()));
  await upstream?.close();
});

describe.each(targets)('official conformance, $name', (t) => {
  describe.each(RUNS)('$label', (r) => {
    it('has no failure outside the baseline, and no baseline entry that passes', () => {
      const run = t.results.get(r.label)!;
      expect(run.exitCode, run.output.slice(-4000)).toBe(0);
    });
    const excusedWhole = excusedFor(t.name);
    const applicable = [
      ...r.applicable,
      ...(t.name === 'aggregator' && r.build === 'next' ? [AGGREGATOR_ONLY] : []),
    ].filter((s) => !excusedWhole.includes(s));
    it.each(applicable)('%s passes with 0 failures (outside its tool-only checks, if any)', (scenario) => {
      const run = t.results.get(r.label)!;
      const checks = run.scenarios.get(scenario);
      // How many checks a scenario has is the suite's business; that it ran and what each check is, is ours.
      expect(checks, `scenario ${scenario} did not run`).toEqual(
        expect.arrayContaining([expect.objectContaining({ id: expect.any(String), status: 'SUCCESS' })]),
      );
      expect(run.expected, 'an applicable scenario is never excused whole').not.toContain(scenario);
      // Only single checks the baseline names (the suite's diagnostic tools, tools/resources listings) are excused.
      const excused = new Set(
        run.expected.filter((e) => e.startsWith(`${scenario}:`)).map((e) => e.slice(scenario.length + 1)),
      );
      const bad = checks!.filter((c) => (c.status === 'FAILURE' || c.status === 'WARNING') && !excused.has(c.id));
      expect(bad, JSON.stringify(bad, null, 2)).toEqual([]);
      expect(counts(checks!).passed).toBeGreaterThan(0);
    });
  });
});
