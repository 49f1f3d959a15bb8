/**
 * The harnesses' one-off requests (verification, session set-up, cold starts), each read in
 * full and timed: through fetch (run, instructions) or through an undici Agent (fanout and
 * aggregate, which control their connections). Both answer { status, headers (a plain
 * object, lower-case names), text, ms }.
 */
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { JSON_HEADERS } from './jsonrpc.mjs';

export { Agent };

/** fetch; `ms` covers the request and the whole body. */
export async function fetchText(url, { method = 'POST', headers = JSON_HEADERS, body } = {}) {
  const t0 = performance.now();
  const res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  const ms = performance.now() - t0;
  return { status: res.status, headers: Object.fromEntries(res.headers), text, ms };
}

/** undici on `agent` (undefined: the global dispatcher); also t0/t1 on this process's clock. */
export async function agentText(agent, url, { method = 'POST', headers = JSON_HEADERS, body } = {}) {
  const t0 = performance.now();
  const res = await request(url, {
    method,
    headers,
    body,
    dispatcher: agent,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, ms: performance.now() - t0, t0, t1: performance.now() };
}
