/**
 * `npm run bench:instructions`: instructions per request, counted by
 * valgrind's callgrind on the whole workerd process, for the legacy
 * in-session `prompts/list` and the 2026-07-28 stateless one.
 *
 * Why: on a noisy 2-core machine req/s and CPU time move by ±10–20 % between
 * measurements, which hides any difference between the two eras. Instruction
 * counts do not depend on what else the machine is doing. Miniflare runs
 * workerd through a wrapper (MINIFLARE_WORKERD_PATH) that starts it under
 * callgrind; both kinds of request are warmed up, then counted in batches of
 * INSTR_REQUESTS (200), alternating, INSTR_BATCHES (4) each. Needs valgrind.
 *
 * The counts include workerd's own HTTP handling, not only the Worker's
 * JavaScript; they are per request, sequential (one connection).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { buildGateway, createHarness, envNum, fmtInt, gatewayBaseOptions, median, readWranglerConfig } from './lib.mjs';
import { snapshotEntries } from '../src/catalog/store.ts';
import { snapshot } from './prompts.mjs';

const REQUESTS = envNum('INSTR_REQUESTS', 200, { min: 10, integer: true });
const BATCHES = envNum('INSTR_BATCHES', 4, { min: 1, integer: true });
const h = createHarness({ name: 'instructions', timeoutS: 1800, timeoutVar: 'INSTR_TIMEOUT_SECONDS' });

// identity: like autocannon in run.mjs, and like production, where the edge (not the Worker) compresses.
// Without it Miniflare's entry worker gzips each response inside workerd: ~40 % of the count, none of it the Worker's.
const JSON_ACCEPT = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'accept-encoding': 'identity' };
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

async function main() {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('valgrind is not installed (Debian: apt-get install valgrind)');
  }
  const tmp = h.makeTempDir('promptgate-instr-');
  const [wcfg, build] = await Promise.all([readWranglerConfig(h), buildGateway(h, tmp)]);
  const workerd = createRequire(import.meta.url).resolve('@cloudflare/workerd-linux-64/bin/workerd');
  const wrapper = join(tmp, 'workerd-callgrind.sh');
  writeFileSync(wrapper, `#!/bin/sh\nexec valgrind --tool=callgrind --smc-check=all-non-file --callgrind-out-file=${tmp}/cg.%p "${workerd}" "$@"\n`);
  chmodSync(wrapper, 0o755);
  process.env.MINIFLARE_WORKERD_PATH = wrapper;

  h.log('starting workerd under callgrind (slow)…');
  const mf = new Miniflare({ ...gatewayBaseOptions(build, wcfg, 'instr'), bindings: { ...wcfg.vars, SIGNING_SECRET: 'instructions-bench' } });
  h.onCleanup('miniflare', () => mf.dispose());
  const url = new URL('/mcp', await mf.ready).href;
  const kv = await mf.getKVNamespace('PROMPTS');
  for (const { key, value } of snapshotEntries(snapshot())) await kv.put(key, value);
  const pid = readdirSync(tmp).find((f) => /^cg\.\d+$/.test(f))?.slice(3);
  assert.ok(pid, 'no callgrind output file: did workerd start under the wrapper?');

  const init = await fetch(url, {
    method: 'POST',
    headers: JSON_ACCEPT,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'instr', version: '1' } } }),
  });
  const sid = init.headers.get('mcp-session-id');
  assert.ok(sid, 'initialize gave no session id');
  const kinds = {
    legacy: { headers: { ...JSON_ACCEPT, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'prompts/list' }) },
    modern: {
      headers: { ...JSON_ACCEPT, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'prompts/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'prompts/list', params: { _meta: MODERN_META } }),
    },
  };
  const send = async (kind, n) => {
    for (let i = 0; i < n; i++) {
      const res = await fetch(url, { method: 'POST', ...kinds[kind] });
      const body = await res.json();
      assert.equal(res.status, 200, `${kind}: HTTP ${res.status}`);
      assert.equal(body.result?.prompts?.length, 20, `${kind}: not the 20-prompt list`);
    }
  };
  h.log('warming up both kinds…');
  for (let i = 0; i < 3; i++) for (const k of Object.keys(kinds)) await send(k, REQUESTS);

  const counts = { legacy: [], modern: [] };
  let dump = 0;
  for (let b = 0; b < BATCHES; b++) {
    for (const kind of b % 2 ? ['modern', 'legacy'] : ['legacy', 'modern']) {
      execFileSync('callgrind_control', ['-z', pid], { stdio: 'ignore' });
      await send(kind, REQUESTS);
      execFileSync('callgrind_control', ['-d', kind, pid], { stdio: 'ignore' });
      dump += 1;
      const totals = /^totals: (\d+)/m.exec(readFileSync(join(tmp, `cg.${pid}.${dump}`), 'utf8'));
      assert.ok(totals, `dump ${dump} has no totals line`);
      counts[kind].push(Number(totals[1]) / REQUESTS);
      h.log(`batch ${b + 1} ${kind}: ${fmtInt(counts[kind].at(-1))} instructions per request`);
    }
  }
  const m = { legacy: median(counts.legacy), modern: median(counts.modern) };
  console.log(
    [
      `## Instructions per prompts/list (callgrind, whole workerd process, ${BATCHES} alternating batches of ${REQUESTS})`,
      '',
      '| Request | median | batches |',
      '|---|---:|---|',
      `| legacy, in session | ${fmtInt(m.legacy)} | ${counts.legacy.map(fmtInt).join(' / ')} |`,
      `| 2026-07-28, stateless | ${fmtInt(m.modern)} | ${counts.modern.map(fmtInt).join(' / ')} |`,
      '',
      `Modern ÷ legacy: ${(m.modern / m.legacy).toFixed(4)}x (below 1 = modern does less work).`,
    ].join('\n'),
  );
}

h.runMain(main);
