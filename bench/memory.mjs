/**
 * `npm run bench:memory`: the Worker's JavaScript heap with a catalog at its size limit
 * (MAX_CATALOG_BYTES, one KV value), against the 128 MB a Workers isolate may use.
 *
 * The gateway, built as `wrangler deploy --dry-run` builds it, runs on Miniflare with the
 * inspector open. A catalog just under the limit is published through the admin API in parts,
 * as the CLI does, then read every way a client reads it, then published again changed
 * throughout (so an isolate holds two generations at once), and read again. While each phase
 * runs, `Runtime.getHeapUsage` is polled back to back on the Worker's isolate; the table gives
 * each phase's peak and what is left after a full collection.
 *
 * Locally one isolate runs the Worker and all of its Durable Objects (the CatalogWriter
 * included); on Cloudflare each object may have an isolate of its own. The figures are
 * therefore an upper bound for any one isolate there.
 *
 * Knobs: MEMORY_SHAPES (many: 17,000 prompts of ~0.7 KB; large: 13 prompts of ~0.9 MB),
 * MEMORY_FILL (0.97 of the limit), MEMORY_HEAP_LIMIT_MB (128: V8's heap capped as on Cloudflare;
 * 0: uncapped, so the peaks include garbage not yet collected), MEMORY_INSPECTOR_PORT (9330).
 */
import { AdminClient } from '../cli/api.ts';
import { MAX_CATALOG_BYTES } from '../src/catalog/versioned-writes.ts';
import { inspect } from './lib/cdp.mjs';
import { buildGateway } from './lib/build.mjs';
import { envNum, envSelect } from './lib/env.mjs';
import { createHarness } from './lib/harness.mjs';
import { fetchText } from './lib/http.mjs';
import { JSON_HEADERS, MODERN, MODERN_META, PROTOCOL, rpc, rpcResult } from './lib/jsonrpc.mjs';
import { openSession } from './lib/mcp-session.mjs';
import { gatewayBaseOptions } from './lib/miniflare-options.mjs';
import { PROMPTS } from './lib/prompts.mjs';
import { startMiniflare } from './lib/start-target.mjs';
import { readWranglerConfig } from './lib/wrangler-config.mjs';

const SHAPES = envSelect('MEMORY_SHAPES', [
  { id: 'many', count: 17_000 },
  { id: 'large', count: 13 },
]);
const FILL = envNum('MEMORY_FILL', 0.97, { min: 0.01, integer: false });
const INSPECTOR_PORT = envNum('MEMORY_INSPECTOR_PORT', 9330, { min: 1024 });
const HEAP_LIMIT_MB = envNum('MEMORY_HEAP_LIMIT_MB', 128, { min: 0 });
const ADMIN_TOKEN = 'memory-admin-token';

/**
 * workerd takes V8 flags in its config (`v8Flags`, workerd.capnp), which Miniflare does not
 * expose; its config encoder walks the root object with Object.entries, so the flag is added
 * there, to the root config alone (the one object with services, sockets and extensions).
 * With the heap capped as a Workers isolate's is, a phase whose live data does not fit ends the
 * runtime instead of growing past it; 0 leaves the heap uncapped.
 */
function capHeap(mb) {
  if (!mb) return;
  const entries = Object.entries;
  Object.entries = (o) => {
    const e = entries(o);
    if (o && typeof o === 'object' && 'services' in o && 'sockets' in o && 'extensions' in o)
      e.push(['v8Flags', [`--max-heap-size=${mb}`]]);
    return e;
  };
}
const MB = 1_000_000;

const h = createHarness({ name: 'memory', timeoutS: 1_800, timeoutVar: 'MEMORY_TIMEOUT_SECONDS' });

/** `count` prompts filling FILL of the limit, each a bench prompt padded with text; `mark` changes them all. */
function catalog(count, mark) {
  const per = Math.floor((MAX_CATALOG_BYTES * FILL) / count);
  return Array.from({ length: count }, (_, i) => {
    const base = PROMPTS[i % PROMPTS.length];
    const name = `${base.name}_${String(i).padStart(5, '0')}`;
    const record = { ...base, name, messages: base.messages.map((m) => ({ ...m })) };
    const pad = per - Buffer.byteLength(JSON.stringify(record)) - 16;
    const words = pad > 0 ? `${mark} ${i} `.repeat(Math.ceil(pad / 8)).slice(0, pad) : '';
    // One text block holds at most 100,000 characters (validate.ts): a large prompt is many messages.
    const chunks = words.match(/[^]{1,90000}/g) ?? [];
    record.messages[0].content = { type: 'text', text: `${record.messages[0].content.text}\n\n${chunks[0] ?? ''}` };
    for (const text of chunks.slice(1)) record.messages.push({ role: 'user', content: { type: 'text', text } });
    return record;
  });
}

/** Polls the isolate's heap back to back until stopped; resolves the peak used and total sizes. */
function sampler(cdp) {
  let running = true;
  const peak = { used: 0, total: 0, samples: 0 };
  const done = (async () => {
    while (running) {
      const { usedSize, totalSize } = await cdp.send('Runtime.getHeapUsage');
      peak.used = Math.max(peak.used, usedSize);
      peak.total = Math.max(peak.total, totalSize);
      peak.samples++;
    }
  })();
  return async () => {
    running = false;
    await done;
    return peak;
  };
}

/**
 * The heap used after a full collection. workerd's inspector does not answer
 * `HeapProfiler.collectGarbage`; a heap snapshot collects first (its chunks are dropped).
 */
async function retained(cdp) {
  await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  return (await cdp.send('Runtime.getHeapUsage')).usedSize;
}

/** Every page of a listing, by cursor; the number of prompts it held. */
async function readAll(url, headers, params = {}) {
  let cursor;
  let n = 0;
  do {
    const r = await fetchText(url, { headers, body: rpc('prompts/list', { ...params, ...(cursor && { cursor }) }) });
    const result = rpcResult(r, 'prompts/list');
    n += result.prompts.length;
    cursor = result.nextCursor;
  } while (cursor);
  return n;
}

async function reads(url, sessionId, records) {
  const session = { ...JSON_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL };
  const modern = { ...JSON_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'prompts/list' };
  const listed = await readAll(url, session);
  if (listed !== records.length) throw new Error(`listed ${listed} of ${records.length} prompts`);
  await readAll(url, modern, { _meta: MODERN_META });
  const pages = await fetchText(new URL('/prompts', url).href, { method: 'GET', headers: {} });
  if (pages.status !== 200) throw new Error(`GET /prompts: HTTP ${pages.status}`);
  for (const r of records.slice(0, 20)) {
    const args = Object.fromEntries(r.arguments.map((a) => [a.name, 'x']));
    rpcResult(
      await fetchText(url, { headers: session, body: rpc('prompts/get', { name: r.name, arguments: args }) }),
      'prompts/get',
    );
  }
}

async function measureShape(shape, build, wcfg) {
  const t = await startMiniflare(
    h,
    {
      ...gatewayBaseOptions(build, wcfg, `memory-${shape.id}`),
      inspectorPort: INSPECTOR_PORT,
      bindings: {
        ...wcfg.vars,
        SIGNING_SECRET: 'memory-signing-secret',
        ADMIN_TOKEN,
        AUTH: 'none',
        RATE_LIMITS: 'off',
      },
    },
    'gateway',
  );
  h.log(`${shape.id}: gateway at ${t.url}`);
  const api = new AdminClient(new URL(t.url).origin, ADMIN_TOKEN);
  const { sessionId } = await openSession(fetchText, t.url, { clientInfo: { name: 'memory', version: '1' } });
  const cdp = await inspect(INSPECTOR_PORT, 'promptgate');
  await cdp.send('HeapProfiler.enable');
  const rows = [];
  let failed;
  const phase = async (name, fn) => {
    if (failed) return;
    const stop = sampler(cdp);
    const t0 = performance.now();
    try {
      await fn();
    } catch (e) {
      // Past the heap cap the runtime aborts: this phase and the rest of the shape are not served.
      failed = String(e.message ?? e).slice(0, 120);
      rows.push({ name, failed });
      h.log(`${shape.id}: ${name}: FAILED: ${failed}`);
      return;
    }
    const ms = performance.now() - t0;
    const peak = await stop();
    rows.push({ name, peak: peak.used, total: peak.total, after: await retained(cdp), ms, samples: peak.samples });
    h.log(`${shape.id}: ${name}: peak ${(peak.used / MB).toFixed(1)} MB in ${Math.round(ms)} ms`);
  };
  rows.push({ name: 'idle, empty catalog', after: await retained(cdp) });
  const first = catalog(shape.count, 'first');
  const second = catalog(shape.count, 'second');
  const bytes = Buffer.byteLength(JSON.stringify(first));
  await phase('publish', () => api.publish(first));
  await phase('read: both eras listed in full, GET /prompts, 20 gets', () => reads(t.url, sessionId, first));
  await phase('publish again, every prompt changed', () => api.publish(second));
  await phase('read again', () => reads(t.url, sessionId, second));
  if (!failed) cdp.close();
  await t.dispose().catch(() => undefined);
  return { shape, bytes, rows };
}

function report({ shape, bytes, rows }) {
  const mb = (n) => (n === undefined ? '—' : `${(n / MB).toFixed(1)} MB`);
  const lines = [
    `\n## ${shape.id}: ${shape.count} prompts, ${mb(bytes)} of records (limit ${mb(MAX_CATALOG_BYTES)}); V8 heap ${HEAP_LIMIT_MB ? `capped at ${HEAP_LIMIT_MB} MB` : 'uncapped'}`,
    '',
    '| Phase | peak heap used | peak heap total | used after a full GC | time |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const r of rows)
    if (r.failed) lines.push(`| ${r.name} | **failed**: ${r.failed} | | | |`);
    else
      lines.push(
        `| ${r.name} | ${mb(r.peak)} | ${mb(r.total)} | ${mb(r.after)} | ${r.ms === undefined ? '—' : `${Math.round(r.ms)} ms (${r.samples} samples)`} |`,
      );
  return lines.join('\n');
}

async function main() {
  capHeap(HEAP_LIMIT_MB);
  const tmp = h.makeTempDir('promptgate-memory-');
  const [wcfg, build] = await Promise.all([readWranglerConfig(h, { kv: ['PROMPTS'] }), buildGateway(h, tmp)]);
  for (const shape of SHAPES) console.log(report(await measureShape(shape, build, wcfg)));
}

h.runMain(main);
