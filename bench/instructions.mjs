/**
 * `npm run bench:instructions`: instructions per request, counted by
 * valgrind's callgrind on the whole workerd process, for the gateway's
 * legacy in-session `prompts/list`, the 2026-07-28 stateless one and the
 * CDN listing (`GET /prompts`), and for the ceiling (the bare Hono Worker of
 * targets/ceiling.mjs) answering the same requests with the same bytes.
 *
 * Why: on a noisy 2-core machine req/s and CPU time move by ±10–20 % between
 * measurements, which hides differences of a few per cent. Instruction counts
 * do not depend on what else the machine is doing. Miniflare runs workerd
 * through a wrapper (MINIFLARE_WORKERD_PATH) that starts it under callgrind
 * (instructions/callgrind.mjs); every kind of request is warmed up, then counted
 * in batches of INSTR_REQUESTS (200), the kinds in rotating order, INSTR_BATCHES (6)
 * each, after INSTR_WARMUP (6) uncounted rounds.
 * Needs valgrind. INSTR_KEEP=<dir> keeps each batch's dump for callgrind_annotate.
 *
 * The counts include workerd's own HTTP handling, not only the Worker's
 * JavaScript; they are per request, sequential (one connection), user space
 * only. "ceiling ÷ target" is the work-based counterpart of run.mjs's
 * "x ceiling": 1 means the target does no more work than the ceiling.
 * A batch can still catch a garbage collection, hence medians.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildCeiling, buildGateway } from './lib/build.mjs';
import { envNum } from './lib/env.mjs';
import { fmtInt } from './lib/format.mjs';
import { createHarness } from './lib/harness.mjs';
import { fetchText } from './lib/http.mjs';
import { MODERN, MODERN_META, PROTOCOL, rpc } from './lib/jsonrpc.mjs';
import { openSession } from './lib/mcp-session.mjs';
import { ceilingOptions, gatewayBaseOptions } from './lib/miniflare-options.mjs';
import { seedCatalog } from './lib/seed.mjs';
import { median } from './lib/stats.mjs';
import { readWranglerConfig } from './lib/wrangler-config.mjs';
import { countBatch, requireValgrind, startCounted, useCallgrindWorkerd } from './instructions/callgrind.mjs';

const REQUESTS = envNum('INSTR_REQUESTS', 200, { min: 10, integer: true });
const BATCHES = envNum('INSTR_BATCHES', 6, { min: 1, integer: true });
// Warm-up rounds per kind: V8 keeps optimizing for a while; fewer than ~5 left the first counted batches a few per cent high.
const WARMUP = envNum('INSTR_WARMUP', 6, { min: 0, integer: true });
// A directory to keep every batch's callgrind dump in (as <kind>.<batch>), for callgrind_annotate.
const KEEP = process.env.INSTR_KEEP;
const h = createHarness({ name: 'instructions', timeoutS: 2400, timeoutVar: 'INSTR_TIMEOUT_SECONDS' });

// identity: like autocannon in run.mjs, and like production, where the edge (not the Worker) compresses.
// Without it Miniflare's entry worker gzips each response inside workerd: ~40 % of the count, none of it the Worker's.
const JSON_ACCEPT = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'accept-encoding': 'identity',
};
const GET_ACCEPT = { accept: 'application/json', 'accept-encoding': 'identity' };
// Catalog refreshes and session rechecks run per interval of wall-clock time, not per request. Under
// valgrind a request takes ~100× longer, so at their configured 2 s they would be counted ~100× too
// often per request (and add a KV read or a Durable Object call to random batches). They are set to
// the longest the config allows (a recheck every ~2,000 requests here); run.mjs measures them at real speed.
const RARE = { CATALOG_REFRESH_MS: '300000', SESSION_RECHECK_MS: '60000' };

/** The gateway (seeded, one session) and the ceiling answering with the gateway's own bytes, both counted. */
async function startTargets(tmp, wcfg, build, ceilingBuild) {
  h.log('starting the gateway under callgrind (slow)…');
  const gwOptions = {
    ...gatewayBaseOptions(build, wcfg, 'instr'),
    bindings: { ...wcfg.vars, ...RARE, SIGNING_SECRET: 'instructions-bench', AUTH: 'none' },
  };
  const gw = await startCounted(h, tmp, gwOptions, 'gateway');
  await seedCatalog(gw.mf);
  const mcp = new URL('/mcp', gw.url).href;
  const { sessionId } = await openSession(fetchText, mcp, {
    headers: JSON_ACCEPT,
    clientInfo: { name: 'instr', version: '1' },
  });
  const legacy = {
    method: 'POST',
    headers: { ...JSON_ACCEPT, 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL },
    body: rpc('prompts/list'),
  };
  const modern = {
    method: 'POST',
    headers: { ...JSON_ACCEPT, 'mcp-protocol-version': MODERN, 'mcp-method': 'prompts/list' },
    body: rpc('prompts/list', { _meta: MODERN_META }),
  };
  const get = { method: 'GET', headers: GET_ACCEPT };
  // The ceiling answers with the gateway's own bytes, so the two differ only in the work behind them.
  const listBytes = await (await fetch(mcp, legacy)).text();
  const getBytes = await (await fetch(new URL('/prompts', gw.url), get)).text();
  h.log('starting the ceiling under callgrind…');
  const ceiling = await startCounted(
    h,
    tmp,
    ceilingOptions(ceilingBuild, wcfg, { CEILING_BODY: listBytes, CEILING_GET_BODY: getBytes }),
    'ceiling',
  );
  return {
    'ceiling POST': { target: ceiling, url: new URL('/mcp', ceiling.url).href, init: legacy },
    'legacy list': { target: gw, url: mcp, init: legacy },
    'modern list': { target: gw, url: mcp, init: modern },
    'ceiling GET': { target: ceiling, url: new URL('/prompts', ceiling.url).href, init: get },
    'GET /prompts': { target: gw, url: new URL('/prompts', gw.url).href, init: get },
  };
}

/** `n` sequential requests of one kind, each checked to be the 20-prompt list. */
async function send({ url, init }, kind, n) {
  for (let i = 0; i < n; i++) {
    const res = await fetch(url, init);
    const body = await res.json();
    assert.equal(res.status, 200, `${kind}: HTTP ${res.status}`);
    assert.equal((body.result ?? body).prompts?.length, 20, `${kind}: not the 20-prompt list`);
  }
}

/** BATCHES counted batches per kind, the kinds in rotating order; resolves per-request counts by kind. */
async function countAll(tmp, kinds) {
  const names = Object.keys(kinds);
  const counts = Object.fromEntries(names.map((k) => [k, []]));
  const dumps = new Map();
  for (let b = 0; b < BATCHES; b++) {
    // Rotating order, so no kind always runs right after the same other one.
    for (const kind of names.map((_, i) => names[(i + b) % names.length])) {
      const tag = kind.replace(/\W+/g, '-');
      let ms;
      const { instructions, dump } = await countBatch(tmp, kinds[kind].target.pid, tag, dumps, async () => {
        const t0 = Date.now();
        await send(kinds[kind], kind, REQUESTS);
        ms = (Date.now() - t0) / REQUESTS;
      });
      counts[kind].push(instructions / REQUESTS);
      if (KEEP) copyFileSync(dump, join(KEEP, `${tag}.${b + 1}`));
      h.log(
        `batch ${b + 1} ${kind}: ${fmtInt(counts[kind].at(-1))} instructions per request (${ms.toFixed(1)} ms each under valgrind)`,
      );
    }
  }
  return counts;
}

function report(counts) {
  const names = Object.keys(counts);
  const m = Object.fromEntries(names.map((k) => [k, median(counts[k])]));
  const ratio = (a, b) => (m[a] / m[b]).toFixed(3);
  return [
    `## Instructions per request (callgrind, whole workerd process, ${BATCHES} batches of ${REQUESTS} per kind)`,
    '',
    '| Request | median | batches |',
    '|---|---:|---|',
    ...names.map((k) => `| ${k} | ${fmtInt(m[k])} | ${counts[k].map(fmtInt).join(' / ')} |`),
    '',
    `- Modern ÷ legacy list: ${ratio('modern list', 'legacy list')}x (below 1 = modern does less work).`,
    `- Ceiling ÷ target (work-based "x ceiling", 1 = no more work than the ceiling): legacy list ${ratio('ceiling POST', 'legacy list')}x, ` +
      `modern list ${ratio('ceiling POST', 'modern list')}x, GET /prompts ${ratio('ceiling GET', 'GET /prompts')}x.`,
  ].join('\n');
}

async function main() {
  requireValgrind();
  const tmp = h.makeTempDir('promptgate-instr-');
  if (KEEP) mkdirSync(KEEP, { recursive: true });
  const [wcfg, build, ceilingBuild] = await Promise.all([
    readWranglerConfig(h, { kv: ['PROMPTS'] }),
    buildGateway(h, tmp),
    buildCeiling(tmp),
  ]);
  useCallgrindWorkerd(tmp);
  const kinds = await startTargets(tmp, wcfg, build, ceilingBuild);
  h.log('warming up every kind…');
  for (let i = 0; i < WARMUP; i++) for (const k of Object.keys(kinds)) await send(kinds[k], k, REQUESTS);
  console.log(report(await countAll(tmp, kinds)));
}

h.runMain(main);
