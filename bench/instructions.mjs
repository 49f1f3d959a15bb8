/**
 * `npm run bench:instructions`: instructions per request, counted by
 * valgrind's callgrind on the whole workerd process, for the gateway's
 * legacy in-session `prompts/list`, the 2026-07-28 stateless one and the
 * CDN listing (`GET /prompts`), and for the ceiling (the bare Hono Worker of
 * run.mjs) answering the same requests with the same bytes.
 *
 * Why: on a noisy 2-core machine req/s and CPU time move by ±10–20 % between
 * measurements, which hides differences of a few per cent. Instruction counts
 * do not depend on what else the machine is doing. Miniflare runs workerd
 * through a wrapper (MINIFLARE_WORKERD_PATH) that starts it under callgrind;
 * every kind of request is warmed up, then counted in batches of
 * INSTR_REQUESTS (200), the kinds in rotating order, INSTR_BATCHES (6) each,
 * after INSTR_WARMUP (6) uncounted rounds.
 * Needs valgrind. INSTR_KEEP=<dir> keeps each batch's dump for callgrind_annotate.
 *
 * The counts include workerd's own HTTP handling, not only the Worker's
 * JavaScript; they are per request, sequential (one connection), user space
 * only. "ceiling ÷ target" is the work-based counterpart of run.mjs's
 * "x ceiling": 1 means the target does no more work than the ceiling.
 * A batch can still catch a garbage collection, hence medians.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { buildCeiling, buildGateway, ceilingOptions, createHarness, envNum, fmtInt, gatewayBaseOptions, median, readWranglerConfig } from './lib.mjs';
import { snapshotEntries } from '../src/catalog/store.ts';
import { snapshot } from './lib/prompts.mjs';

const REQUESTS = envNum('INSTR_REQUESTS', 200, { min: 10, integer: true });
const BATCHES = envNum('INSTR_BATCHES', 6, { min: 1, integer: true });
// Warm-up rounds per kind: V8 keeps optimizing for a while; fewer than ~5 left the first counted batches a few per cent high.
const WARMUP = envNum('INSTR_WARMUP', 6, { min: 0, integer: true });
// A directory to keep every batch's callgrind dump in (as <kind>.<batch>), for callgrind_annotate.
const KEEP = process.env.INSTR_KEEP;
const h = createHarness({ name: 'instructions', timeoutS: 2400, timeoutVar: 'INSTR_TIMEOUT_SECONDS' });

// identity: like autocannon in run.mjs, and like production, where the edge (not the Worker) compresses.
// Without it Miniflare's entry worker gzips each response inside workerd: ~40 % of the count, none of it the Worker's.
const JSON_ACCEPT = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'accept-encoding': 'identity' };
const GET_ACCEPT = { accept: 'application/json', 'accept-encoding': 'identity' };
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

/** Starts a Miniflare whose workerd runs under callgrind; returns it with the pid of its callgrind process. */
async function startCounted(tmp, options, label) {
  const before = new Set(readdirSync(tmp));
  const mf = new Miniflare(options);
  h.onCleanup(label, () => mf.dispose());
  const url = await mf.ready;
  const pid = readdirSync(tmp)
    .find((f) => /^cg\.\d+$/.test(f) && !before.has(f))
    ?.slice(3);
  assert.ok(pid, `${label}: no callgrind output file: did workerd start under the wrapper?`);
  return { mf, url, pid };
}

async function main() {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('valgrind is not installed (Debian: apt-get install valgrind)');
  }
  const tmp = h.makeTempDir('promptgate-instr-');
  if (KEEP) mkdirSync(KEEP, { recursive: true });
  const [wcfg, build, ceilingBuild] = await Promise.all([readWranglerConfig(h), buildGateway(h, tmp), buildCeiling(tmp)]);
  const workerd = createRequire(import.meta.url).resolve('@cloudflare/workerd-linux-64/bin/workerd');
  const wrapper = join(tmp, 'workerd-callgrind.sh');
  writeFileSync(wrapper, `#!/bin/sh\nexec valgrind --tool=callgrind --smc-check=all-non-file --callgrind-out-file=${tmp}/cg.%p "${workerd}" "$@"\n`);
  chmodSync(wrapper, 0o755);
  process.env.MINIFLARE_WORKERD_PATH = wrapper;

  h.log('starting the gateway under callgrind (slow)…');
  // Catalog refreshes and session rechecks run per interval of wall-clock time, not per request. Under
  // valgrind a request takes ~100× longer, so at their configured 2 s they would be counted ~100× too
  // often per request (and add a KV read or a Durable Object call to random batches). They are set to
  // the longest the config allows (a recheck every ~2,000 requests here); run.mjs measures them at real speed.
  const rare = { CATALOG_REFRESH_MS: '300000', SESSION_RECHECK_MS: '60000' };
  const gw = await startCounted(tmp, { ...gatewayBaseOptions(build, wcfg, 'instr'), bindings: { ...wcfg.vars, ...rare, SIGNING_SECRET: 'instructions-bench' } }, 'gateway');
  const kv = await gw.mf.getKVNamespace('PROMPTS');
  for (const { key, value } of snapshotEntries(snapshot())) await kv.put(key, value);
  const mcp = new URL('/mcp', gw.url).href;
  const init = await fetch(mcp, {
    method: 'POST',
    headers: JSON_ACCEPT,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'instr', version: '1' } } }),
  });
  const sid = init.headers.get('mcp-session-id');
  assert.ok(sid, 'initialize gave no session id');
  const legacy = { method: 'POST', headers: { ...JSON_ACCEPT, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'prompts/list' }) };
  const modern = {
    method: 'POST',
    headers: { ...JSON_ACCEPT, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'prompts/list' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'prompts/list', params: { _meta: MODERN_META } }),
  };
  const get = { method: 'GET', headers: GET_ACCEPT };

  // The ceiling answers with the gateway's own bytes, so the two differ only in the work behind them.
  const listBytes = await (await fetch(mcp, legacy)).text();
  const getBytes = await (await fetch(new URL('/prompts', gw.url), get)).text();
  h.log('starting the ceiling under callgrind…');
  const ceiling = await startCounted(tmp, ceilingOptions(ceilingBuild, wcfg, { CEILING_BODY: listBytes, CEILING_GET_BODY: getBytes }), 'ceiling');

  const kinds = {
    'ceiling POST': { target: ceiling, url: new URL('/mcp', ceiling.url).href, init: legacy },
    'legacy list': { target: gw, url: mcp, init: legacy },
    'modern list': { target: gw, url: mcp, init: modern },
    'ceiling GET': { target: ceiling, url: new URL('/prompts', ceiling.url).href, init: get },
    'GET /prompts': { target: gw, url: new URL('/prompts', gw.url).href, init: get },
  };
  const send = async (kind, n) => {
    const { url, init } = kinds[kind];
    for (let i = 0; i < n; i++) {
      const res = await fetch(url, init);
      const body = await res.json();
      assert.equal(res.status, 200, `${kind}: HTTP ${res.status}`);
      assert.equal((body.result ?? body).prompts?.length, 20, `${kind}: not the 20-prompt list`);
    }
  };
  const names = Object.keys(kinds);
  h.log('warming up every kind…');
  for (let i = 0; i < WARMUP; i++) for (const k of names) await send(k, REQUESTS);

  const counts = Object.fromEntries(names.map((k) => [k, []]));
  const dumps = new Map();
  for (let b = 0; b < BATCHES; b++) {
    // Rotating order, so no kind always runs right after the same other one.
    for (const kind of names.map((_, i) => names[(i + b) % names.length])) {
      const { pid } = kinds[kind].target;
      const tag = kind.replace(/\W+/g, '-');
      execFileSync('callgrind_control', ['-z', pid], { stdio: 'ignore' });
      const t0 = Date.now();
      await send(kind, REQUESTS);
      const ms = (Date.now() - t0) / REQUESTS;
      execFileSync('callgrind_control', ['-d', tag, pid], { stdio: 'ignore' });
      dumps.set(pid, (dumps.get(pid) ?? 0) + 1);
      const dump = join(tmp, `cg.${pid}.${dumps.get(pid)}`);
      const totals = /^totals: (\d+)/m.exec(readFileSync(dump, 'utf8'));
      assert.ok(totals, `${dump} has no totals line`);
      counts[kind].push(Number(totals[1]) / REQUESTS);
      if (KEEP) copyFileSync(dump, join(KEEP, `${tag}.${b + 1}`));
      h.log(`batch ${b + 1} ${kind}: ${fmtInt(counts[kind].at(-1))} instructions per request (${ms.toFixed(1)} ms each under valgrind)`);
    }
  }
  const m = Object.fromEntries(names.map((k) => [k, median(counts[k])]));
  const ratio = (a, b) => (m[a] / m[b]).toFixed(3);
  console.log(
    [
      `## Instructions per request (callgrind, whole workerd process, ${BATCHES} batches of ${REQUESTS} per kind)`,
      '',
      '| Request | median | batches |',
      '|---|---:|---|',
      ...names.map((k) => `| ${k} | ${fmtInt(m[k])} | ${counts[k].map(fmtInt).join(' / ')} |`),
      '',
      `- Modern ÷ legacy list: ${ratio('modern list', 'legacy list')}x (below 1 = modern does less work).`,
      `- Ceiling ÷ target (work-based "x ceiling", 1 = no more work than the ceiling): legacy list ${ratio('ceiling POST', 'legacy list')}x, ` +
        `modern list ${ratio('ceiling POST', 'modern list')}x, GET /prompts ${ratio('ceiling GET', 'GET /prompts')}x.`,
    ].join('\n'),
  );
}

h.runMain(main);
