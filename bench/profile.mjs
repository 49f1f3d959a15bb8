/**
 * `npm run bench:profile`: where a warm request's time goes inside the Worker. The gateway is
 * built as `wrangler deploy --dry-run` builds it but unminified (so frames keep their names), run
 * on Miniflare with the inspector open, and put under autocannon load for each scenario while
 * V8's sampling profiler records the Worker's isolate (Chrome DevTools protocol). Prints, per
 * scenario, the functions with the most self time, per request; writes
 * bench/out/profile-<scenario>.cpuprofile, which Chrome DevTools opens.
 *
 * How to read it: only the Worker's isolate is sampled (Miniflare's entry worker, workerd's
 * HTTP and the I/O are outside it: workerd CPU per request, in `npm run bench`, counts them).
 * A runtime call (console.log, new Response) shows as `:0`, or as self time of the JS function
 * V8 inlined it into: the log line's console.log is the self time of finishRequest or
 * logRequest. With the inspector attached, console.log also reports each line to it, so the
 * log line's share here is an upper bound.
 *
 * Knobs: PROFILE_SCENARIOS (ping,get,list,modern-list,cached-get), PROFILE_SECONDS (8),
 * PROFILE_CONNECTIONS (10), PROFILE_INTERVAL_US (100), PROFILE_TOP (20).
 */
import { join } from 'node:path';
import { inspect } from './lib/cdp.mjs';
import { envNum, envSelect } from './lib/env.mjs';
import { createHarness } from './lib/harness.mjs';
import { fetchText } from './lib/http.mjs';
import { JSON_HEADERS, MODERN, MODERN_META, PROTOCOL, rpc, rpcResult } from './lib/jsonrpc.mjs';
import { assertClean, load } from './lib/load.mjs';
import { openSession } from './lib/mcp-session.mjs';
import { gatewayBaseOptions } from './lib/miniflare-options.mjs';
import { writeOut } from './lib/output.mjs';
import { GET_ARGS, GET_PROMPT } from './lib/prompts.mjs';
import { seedCatalog } from './lib/seed.mjs';
import { startMiniflare } from './lib/start-target.mjs';
import { readWranglerConfig } from './lib/wrangler-config.mjs';

const ALL = ['ping', 'get', 'list', 'modern-list', 'cached-get'];
const SCENARIOS = envSelect(
  'PROFILE_SCENARIOS',
  ALL.map((id) => ({ id })),
).map((s) => s.id);
const SECONDS = envNum('PROFILE_SECONDS', 8, { min: 1 });
const CONNECTIONS = envNum('PROFILE_CONNECTIONS', 10, { min: 1 });
const INTERVAL_US = envNum('PROFILE_INTERVAL_US', 100, { min: 10 });
const TOP = envNum('PROFILE_TOP', 20, { min: 1 });
const INSPECTOR_PORT = envNum('PROFILE_INSPECTOR_PORT', 9329, { min: 1024 });

const h = createHarness({ name: 'profile', timeoutS: 900, timeoutVar: 'PROFILE_TIMEOUT_SECONDS' });

async function buildUnminified(tmp) {
  const outdir = join(tmp, 'gateway');
  await h.exec('npx', ['wrangler', 'deploy', '--dry-run', '--minify=false', '--outdir', outdir], {
    timeoutMs: 180_000,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1' },
  });
  return { scriptPath: join(outdir, 'index.js') };
}

/** Self sample counts per function (file:line keeps same-named functions apart). */
function summarize(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let idle = 0;
  for (const id of profile.samples) {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    const name = functionName || '(anonymous)';
    if (name === '(idle)') idle++;
    const key = `${name} ${url.split('/').pop()}:${lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + 1);
  }
  return { self, busy: profile.samples.length - idle };
}

function plans(url, sessionId) {
  const session = { ...JSON_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL };
  const modern = { ...JSON_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'prompts/list' };
  const base = new URL(url).origin;
  return {
    ping: { url, headers: session, body: rpc('ping') },
    get: { url, headers: session, body: rpc('prompts/get', { name: GET_PROMPT, arguments: GET_ARGS }) },
    list: { url, headers: session, body: rpc('prompts/list') },
    'modern-list': { url, headers: modern, body: rpc('prompts/list', { _meta: MODERN_META }) },
    'cached-get': { method: 'GET', url: `${base}/prompts`, headers: { 'accept-encoding': 'identity' } },
  };
}

async function main() {
  const tmp = h.makeTempDir('promptgate-profile-');
  const [wcfg, build] = await Promise.all([
    readWranglerConfig(h, { kv: ['PROMPTS'], dos: { SESSIONS: 'SessionObject' } }),
    buildUnminified(tmp),
  ]);
  const t = await startMiniflare(
    h,
    {
      ...gatewayBaseOptions(build, wcfg, 'profile'),
      inspectorPort: INSPECTOR_PORT,
      bindings: { ...wcfg.vars, SIGNING_SECRET: 'profile-signing-secret', AUTH: 'none', RATE_LIMITS: 'off' },
    },
    'gateway',
  );
  await seedCatalog(t.mf);
  const { sessionId } = await openSession(fetchText, t.url, { clientInfo: { name: 'profile', version: '1' } });
  const all = plans(t.url, sessionId);
  const cdp = await inspect(INSPECTOR_PORT, 'promptgate');
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: INTERVAL_US });
  for (const name of SCENARIOS) {
    const plan = all[name];
    const first = await fetchText(plan.url, plan);
    if (first.status !== 200) throw new Error(`${name}: HTTP ${first.status}: ${first.text.slice(0, 200)}`);
    if (plan.method !== 'GET') rpcResult(first, name);
    await load(h, { ...plan, expectBody: first.text }, CONNECTIONS, 1); // warm-up
    await cdp.send('Profiler.start');
    const m = await load(h, { ...plan, expectBody: first.text }, CONNECTIONS, SECONDS);
    const { profile } = await cdp.send('Profiler.stop');
    assertClean(m, name);
    // bench/out/ is gitignored: a fresh clone has none until the first harness writes there.
    const file = writeOut(`profile-${name}.cpuprofile`, profile);
    console.log(report(name, m, summarize(profile), file));
  }
  cdp.close();
}

function report(name, m, s, file) {
  const pct = (n) => `${((100 * n) / s.busy).toFixed(1)} %`;
  const perReq = (n) => `${((n * INTERVAL_US) / m.total).toFixed(1)} µs/req`;
  const lines = [
    `\n## ${name}: ${Math.round(m.rps)} req/s, ${s.busy} busy samples of ${INTERVAL_US} µs (${perReq(s.busy)} in the isolate)`,
    '',
    '| Function (self) | share of busy | per request |',
    '|---|---:|---:|',
  ];
  const top = [...s.self].filter(([k]) => !k.startsWith('(idle)')).sort((a, b) => b[1] - a[1]);
  for (const [key, n] of top.slice(0, TOP)) lines.push(`| \`${key}\` | ${pct(n)} | ${perReq(n)} |`);
  lines.push('', `Profile: ${file}`);
  return lines.join('\n');
}

h.runMain(main);
