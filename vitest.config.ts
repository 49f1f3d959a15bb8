import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

// Three projects: `workers` runs inside workerd against real KV and Durable
// Objects (Miniflare); `node` covers Node-side code (the file loader, later the
// CLI); `e2e` runs in Node against a real `wrangler dev` over HTTP.
export default defineConfig({
  test: {
    // One request line per request (docs/observability.md) is thousands of lines per run; the suites
    // that check them read them through a console spy (test/flow/observe.test.ts), so the output drops them.
    onConsoleLog: (log) => !log.includes('"msg":"request"'),
    projects: [
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: './wrangler.toml' },
            miniflare: {
              bindings: {
                SIGNING_SECRET: 'test-signing-secret',
                // Access control has its own suites (test/flow/auth*.test.ts), which set their own env.
                AUTH: 'none',
                ALLOWED_ORIGINS: 'http://localhost:*,https://app.example.com',
                PAGE_SIZE: '3',
                CATALOG_REFRESH_MS: '0',
                MAX_BODY_BYTES: '65536',
                SESSION_TTL_SECONDS: '60',
                // Flow tests ask the session object on every request; the memo has its own test.
                SESSION_RECHECK_MS: '0',
                SSE_KEEPALIVE_MS: '300',
                SSE_RETRY_MS: '1500',
                NOTIFY_COALESCE_MS: '500',
                REGISTRY_SHARDS: '4',
                ADMIN_TOKEN: 'test-admin-token',
                // A Worker secret an upstream's configuration names (test/flow/cold-secrets.test.ts).
                UPSTREAM_TEST_SID: 'c0ld-s1d-v4lue',
                // Small enough to reach under the 64 KiB body limit above (test/flow/hardening.test.ts).
                MAX_ARGUMENTS: '64',
                MAX_ARGUMENT_BYTES: '8192',
                MAX_ARGUMENTS_BYTES: '16384',
                MAX_RENDERED_BYTES: '65536',
                // A flush is armed in the counting request's waitUntil: suites that wait on a request's execution
                // context (waitOnExecutionContext) would wait out the 10 s default for every counted request.
                USAGE_FLUSH_MS: '10',
              },
              // The suites send thousands of requests from one client: /mcp and /admin limits are out
              // of reach here. Failed admin tokens keep the production limit; tests that trip it use
              // their own CF-Connecting-IP (test/flow/hardening.test.ts). test/e2e/limits.test.ts runs
              // the wrangler.toml limits over real HTTP.
              // The optional Analytics Engine dataset (wrangler.toml shows it commented out): bound here so every
              // flush of the usage suites also writes to a real (local, write-only) binding.
              analyticsEngineDatasets: { USAGE_EVENTS: { dataset: 'promptgate_usage' } },
              ratelimits: {
                MCP_RATE_LIMIT: { simple: { limit: 1_000_000, period: 60 } },
                ADMIN_RATE_LIMIT: { simple: { limit: 1_000_000, period: 60 } },
                ADMIN_AUTH_RATE_LIMIT: { simple: { limit: 10, period: 60 } },
              },
            },
          }),
        ],
        test: {
          name: 'workers',
          include: ['test/unit/**/*.test.ts', 'test/flow/**/*.test.ts'],
          setupFiles: ['./test/setup/asserts.ts'],
          // test/flow/hostile.test.ts: HOSTILE_SEED=<n> replays a run (default: its fixed seed);
          // HOSTILE_CASES and HOSTILE_KINDS (comma-separated) narrow it while investigating.
          provide: {
            hostileSeed: process.env.HOSTILE_SEED ?? '',
            hostileCases: process.env.HOSTILE_CASES ?? '',
            hostileKinds: process.env.HOSTILE_KINDS ?? '',
          },
          // Tests wait for events, never for durations; this only bounds a run that is broken, on any machine load.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'node',
          include: ['test/node/**/*.test.ts'],
          environment: 'node',
          setupFiles: ['./test/setup/asserts.ts'],
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          setupFiles: ['./test/setup/asserts.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 90_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
