/**
 * What every (scenario, target) pair must answer before it is loaded: HTTP 200, a JSON-RPC
 * result with the right content, the same bytes twice. The verified body is what autocannon
 * then expects on every response, so an error response is never benchmarked.
 */
import assert from 'node:assert/strict';
import { fetchText } from '../lib/http.mjs';
import { JSON_HEADERS, PROTOCOL, rpcResult } from '../lib/jsonrpc.mjs';
import { PROMPTS, getResult, listResult } from '../lib/prompts.mjs';

export const samePrompts = (r) => {
  assert.ok(Array.isArray(r.prompts), 'result.prompts is a list');
  assert.equal(r.prompts.length, 20, 'first page holds all 20 prompts');
  assert.deepEqual(
    r.prompts.map((p) => p.name),
    PROMPTS.map((p) => p.name),
  );
  for (const [i, p] of r.prompts.entries())
    assert.equal(p.arguments?.length, PROMPTS[i].arguments.length, `${p.name}: argument count`);
  assert.equal(r.nextCursor, undefined, 'no second page');
};

/** The GET /prompts page (not JSON-RPC): the list result plus its cache hints. */
export const getPage = (wcfg) => ({ ttlMs: ttlMs(wcfg), cacheScope: 'public', ...listResult() });
const ttlMs = (wcfg) => Number(wcfg.vars.LIST_TTL_MS ?? 60_000);

/** What each scenario must answer, per kind of target. */
export function checksFor(wcfg) {
  const initialized = (r) => (assert.equal(r.protocolVersion, PROTOCOL), assert.ok(r.capabilities?.prompts));
  const list = { gateway: (r) => (samePrompts(r), assert.deepEqual(r, listResult())), peer: samePrompts };
  return {
    list,
    'session-check': list,
    get: { gateway: (r) => assert.deepEqual(r, getResult()), peer: (r) => assert.deepEqual(r, getResult()) },
    ping: { gateway: (r) => assert.deepEqual(r, {}), peer: (r) => assert.deepEqual(r, {}) },
    initialize: { gateway: initialized, peer: initialized },
    'modern-list': {
      gateway: (r) => {
        samePrompts(r);
        assert.equal(r.resultType, 'complete');
        assert.equal(r.ttlMs, ttlMs(wcfg));
        assert.equal(r.cacheScope, 'public');
      },
    },
    'cached-get': {
      gateway: (r) => (samePrompts(r), assert.deepEqual(r, getPage(wcfg))),
      ceiling: (r) => assert.deepEqual(r, getPage(wcfg)),
    },
  };
}

/**
 * A response's headers as the ceiling replays them: all the gateway sent but those the runtime
 * writes itself for any response: length, framing, and the compression it chose for this
 * request's Accept-Encoding (fetch asks for gzip; the load generators do not).
 */
const RUNTIME_HEADERS = new Set([
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'date',
]);
export const replayedHeaders = (headers) =>
  Object.fromEntries(Object.entries(headers).filter(([k]) => !RUNTIME_HEADERS.has(k)));

/** Where the ceiling is asked for a POST scenario: the path picks its body (targets/ceiling.mjs). */
export const ceilingPath = (scenario) => `/${scenario.id}`;

/** The request of a scenario on a target: its URL, headers (session ones in session) and body. */
export function requestFor(scenario, target) {
  if (scenario.method === 'GET')
    return { method: 'GET', url: new URL(scenario.path, target.url).href, headers: { accept: 'application/json' } };
  const headers = { ...JSON_HEADERS, ...scenario.headers };
  if (scenario.session) {
    headers['mcp-protocol-version'] = PROTOCOL;
    if (target.sessionId) headers['mcp-session-id'] = target.sessionId;
  }
  const url = target.kind === 'ceiling' ? new URL(ceilingPath(scenario), target.url).href : target.url;
  return { method: 'POST', url, headers, body: scenario.body };
}

/** Sends the scenario's request twice and checks both answers; returns the body. */
export async function verify(scenario, target, checks) {
  const req = requestFor(scenario, target);
  const what = `${scenario.id} on ${target.id}`;
  const bodies = [];
  for (let i = 0; i < 2; i++) {
    const r = await fetchText(req.url, req);
    // The ceiling's POST answers are the gateway's bytes, read from it before the ceiling started.
    if (target.kind === 'ceiling' && scenario.method !== 'GET') {
      assert.equal(r.status, 200, `${what}: HTTP ${r.status}`);
      assert.equal(r.text, target.bodies[ceilingPath(scenario)], `${what}: not the gateway's bytes`);
      assert.deepEqual(replayedHeaders(r.headers), target.headers[ceilingPath(scenario)], `${what}: not its headers`);
      bodies.push(r.text);
      continue;
    }
    if (target.kind === 'ceiling' && target.getHeaders)
      assert.deepEqual(replayedHeaders(r.headers), target.getHeaders, `${what}: not the gateway's headers`);
    const result =
      scenario.method === 'GET'
        ? (assert.equal(r.status, 200, `${what}: HTTP ${r.status}`), JSON.parse(r.text))
        : rpcResult(r, what);
    try {
      checks[scenario.id][target.kind](result);
    } catch (e) {
      throw new Error(`${what}: wrong answer: ${e.message}`, { cause: e });
    }
    if (scenario.id === 'initialize' && target.kind === 'gateway' && !r.headers['mcp-session-id'])
      throw new Error(`${what}: no mcp-session-id header`);
    bodies.push(r.text);
  }
  if (bodies[0] !== bodies[1])
    throw new Error(`${what}: two identical requests got different bodies; cannot check bodies under load`);
  return bodies[0];
}
