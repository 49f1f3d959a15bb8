/**
 * `npm run bench:auth`: what access control costs on the warm path. A 2026-07-28
 * prompts/list (stateless, so every request is authenticated on its own) against two
 * gateway instances on Miniflare in the same run: OPEN (AUTH=none) and GUARDED
 * (AUTH=oauth,access,apikey), the latter called with a JWT (inline JWKS), an API key and a
 * Cloudflare Access assertion. Rounds are interleaved; each credential's figure is the
 * median over rounds of its req/s ÷ OPEN's req/s in the same round.
 * Target (issue 13): an authenticated list costs at most 15 % more, i.e. ratio >= 1/1.15.
 *
 * Knobs: AUTH_BENCH_SECONDS (5), AUTH_BENCH_ROUNDS (3), AUTH_BENCH_CONNECTIONS (10),
 * AUTH_BENCH_TIMEOUT_SECONDS (600). Prints a markdown table; writes bench/out/auth.json.
 */
import os from 'node:os';
import { makeCredentials } from './auth/credentials.mjs';
import { buildGateway } from './lib/build.mjs';
import { envConnections, envNum } from './lib/env.mjs';
import { fmtInt, fmtMs, fmtX } from './lib/format.mjs';
import { createHarness } from './lib/harness.mjs';
import { fetchText } from './lib/http.mjs';
import { JSON_HEADERS, MODERN, MODERN_META, rpc, rpcResult } from './lib/jsonrpc.mjs';
import { assertClean, load } from './lib/load.mjs';
import { gatewayBaseOptions } from './lib/miniflare-options.mjs';
import { environment, writeOut } from './lib/output.mjs';
import { seedCatalog } from './lib/seed.mjs';
import { startMiniflare } from './lib/start-target.mjs';
import { median, round2 } from './lib/stats.mjs';
import { readWranglerConfig } from './lib/wrangler-config.mjs';

const SECONDS = envNum('AUTH_BENCH_SECONDS', 5, { min: 1 });
const ROUNDS = envNum('AUTH_BENCH_ROUNDS', 3, { min: 1 });
const [CONNECTIONS] = envConnections('AUTH_BENCH_CONNECTIONS', '10');
const TIMEOUT_S = envNum('AUTH_BENCH_TIMEOUT_SECONDS', 600, { min: 30 });
const TARGET = 1 / 1.15;
const SIGNING_SECRET = 'auth-bench-signing-secret';
const ADMIN_TOKEN = 'auth-bench-admin-token';
const BODY = rpc('prompts/list', { _meta: MODERN_META });
const HEADERS = { ...JSON_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'prompts/list' };

const h = createHarness({ name: 'auth', timeoutS: TIMEOUT_S, timeoutVar: 'AUTH_BENCH_TIMEOUT_SECONDS' });
const { log } = h;

async function startGateway(build, wcfg, name, vars) {
  const t = await startMiniflare(
    h,
    {
      ...gatewayBaseOptions(build, wcfg, name),
      bindings: { ...wcfg.vars, SIGNING_SECRET, ADMIN_TOKEN, RATE_LIMITS: 'off', ...vars },
    },
    name,
  );
  await seedCatalog(t.mf);
  return t;
}

/** Mints the API key the bench presents, through the admin API as `promptgate keys create` does. */
async function mintKey(guarded) {
  const r = await fetchText(new URL('/admin/keys', guarded.url).href, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'auth-bench', groups: ['bench'] }),
  });
  if (r.status !== 201) throw new Error(`POST /admin/keys: HTTP ${r.status}: ${r.text.slice(0, 300)}`);
  return JSON.parse(r.text).key;
}

/** One request per plan, checked, and its exact reply kept: every measured reply must equal it. */
async function verify(plans) {
  for (const p of plans) {
    const r = await fetchText(p.url, { headers: p.headers, body: BODY });
    const result = rpcResult(r, p.id);
    if (!Array.isArray(result.prompts) || result.prompts.length === 0) throw new Error(`${p.id}: no prompts listed`);
    p.expectBody = r.text;
  }
  const bodies = new Set(plans.map((p) => p.expectBody));
  if (bodies.size !== 1) throw new Error('the credentials were answered with different lists');
}

async function main() {
  const loadavgAtStart = os.loadavg();
  log(`${ROUNDS} round(s) x 4 targets x ${SECONDS} s at ${CONNECTIONS} connections`);
  const tmp = h.makeTempDir('promptgate-auth-bench-');
  const [wcfg, build, creds] = await Promise.all([
    readWranglerConfig(h, { kv: ['PROMPTS'], dos: { CATALOG: 'CatalogWriter' } }),
    buildGateway(h, tmp),
    makeCredentials(h),
  ]);
  const open = await startGateway(build, wcfg, 'auth-open', { AUTH: 'none' });
  const guarded = await startGateway(build, wcfg, 'auth-guarded', creds.vars);
  const key = await mintKey(guarded);
  const plans = [
    { id: 'open', label: 'AUTH=none', url: open.url, headers: HEADERS },
    { id: 'jwt', label: 'OAuth JWT', url: guarded.url, headers: { ...HEADERS, authorization: `Bearer ${creds.jwt}` } },
    { id: 'apikey', label: 'API key', url: guarded.url, headers: { ...HEADERS, authorization: `Bearer ${key}` } },
    {
      id: 'access',
      label: 'Cloudflare Access',
      url: guarded.url,
      headers: { ...HEADERS, 'cf-access-jwt-assertion': creds.accessJwt },
    },
  ];
  await verify(plans);
  for (const p of plans) await load(h, { ...p, body: BODY }, CONNECTIONS, 1); // warm-up, not measured
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    const m = {};
    for (const p of plans) {
      const r = await load(h, { ...p, body: BODY }, CONNECTIONS, SECONDS);
      assertClean(r, `${p.id} round ${round + 1}`);
      m[p.id] = r;
    }
    log(`round ${round + 1}: ${plans.map((p) => `${p.id} ${fmtInt(m[p.id].rps)} req/s`).join(', ')}`);
    rounds.push(m);
  }
  const rows = plans.map((p) => ({
    id: p.id,
    label: p.label,
    rps: median(rounds.map((m) => m[p.id].rps)),
    p50: median(rounds.map((m) => m[p.id].p50)),
    ratio: median(rounds.map((m) => m[p.id].rps / m.open.rps)),
  }));
  console.log(report(rows));
  const out = { startedAt: new Date(), settings: { SECONDS, ROUNDS, CONNECTIONS, TARGET }, rows, rounds };
  out.environment = environment(loadavgAtStart, ['miniflare', 'wrangler', 'jose']);
  log(`wrote ${writeOut('auth.json', out, (_k, v) => (typeof v === 'number' ? round2(v) : v))}`);
}

function report(rows) {
  const lines = [
    `2026-07-28 prompts/list, ${CONNECTIONS} connections, medians of ${ROUNDS} interleaved rounds of ${SECONDS} s`,
    '',
    '| Credential | req/s | p50 ms | ÷ AUTH=none | target |',
    '|---|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    const verdict =
      r.id === 'open' ? 'baseline' : r.ratio >= TARGET ? `≥ ${fmtX(TARGET)} met` : `≥ ${fmtX(TARGET)} MISSED`;
    lines.push(`| ${r.label} | ${fmtInt(r.rps)} | ${fmtMs(r.p50, 2)} | ${fmtX(r.ratio)} | ${verdict} |`);
  }
  return lines.join('\n');
}

h.runMain(main);
