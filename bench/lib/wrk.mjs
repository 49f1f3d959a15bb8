/**
 * Load generation with wrk (BENCH_LOAD=wrk), for runs where autocannon's share of the two
 * cores is in question: wrk is C and one thread here. The request and the expected body are
 * handed over in files; a Lua script sends the one request and counts, per response, a status
 * outside 2xx or a body other than the verified one, so the clean-measurement rule of load.mjs
 * holds for wrk too. The result has autocannon's shape (load.mjs).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A Lua string literal of an ASCII `s` (paths, header names and values; bodies go through files). */
const lua = (s) => JSON.stringify(s);

function script(dir, { method, headers, body, expectBody }) {
  const bodyFile = join(dir, 'body');
  const expectFile = join(dir, 'expect');
  writeFileSync(bodyFile, body ?? '');
  writeFileSync(expectFile, expectBody ?? '');
  const setHeaders = Object.entries(headers ?? {})
    .map(([k, v]) => `wrk.headers[${lua(k)}] = ${lua(String(v))}`)
    .join('\n');
  return `
local function slurp(p) local f = assert(io.open(p, "rb")); local s = f:read("*a"); f:close(); return s end
wrk.method = ${lua(method)}
${body === undefined ? '' : `wrk.body = slurp(${lua(bodyFile)})`}
${setHeaders}
local expect = ${expectBody === undefined ? 'nil' : `slurp(${lua(expectFile)})`}
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init() non2xx = 0; mismatches = 0 end
function response(status, _, body)
  if status < 200 or status > 299 then non2xx = non2xx + 1
  elseif expect ~= nil and body ~= expect then mismatches = mismatches + 1 end
end
function done(summary, latency)
  local n, m = 0, 0
  for _, t in ipairs(threads) do n = n + t:get("non2xx"); m = m + t:get("mismatches") end
  local e = summary.errors
  io.write(string.format("WRK %d %d %d %d %d %d %d %f %f\\n", summary.requests, summary.duration,
    n, m, e.connect + e.read + e.write, e.timeout, latency:percentile(50), latency:percentile(99), latency.mean))
end
`;
}

/** `plan` as in load.mjs; resolves autocannon's result shape (latencies in ms). */
export function loadWrk(h, plan, connections, seconds) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  writeFileSync(join(dir, 'plan.lua'), script(dir, { method: 'POST', ...plan }));
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', join(dir, 'plan.lua'), plan.url];
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    h.currentLoad = { stop: () => child.kill('SIGINT') };
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', (e) => reject(new Error(`wrk could not start (apt-get install wrk): ${e.message}`)));
    child.on('close', (code) => {
      h.currentLoad = null;
      rmSync(dir, { recursive: true, force: true });
      const line = out.split('\n').find((l) => l.startsWith('WRK '));
      if (code !== 0 || !line) return reject(new Error(`wrk exited ${code}: ${out.slice(-500)}`));
      const [total, durUs, non2xx, mismatches, errors, timeouts, p50, p99, mean] = line.slice(4).split(' ').map(Number);
      resolve({
        rps: total / (durUs / 1e6),
        total,
        durationS: durUs / 1e6,
        p50: p50 / 1000,
        p99: p99 / 1000,
        mean: mean / 1000,
        non2xx,
        errors,
        timeouts,
        mismatches,
        statusCodes: {},
      });
    });
  });
}
