/**
 * The gateways of `npm run bench:aggregate`: on Miniflare with the UPSTREAMS of the run (none
 * for LOCAL), the 20 local prompts published through the admin API (the CatalogWriter
 * rebuilds the snapshot from its own SQLite when an upstream is listed, so seeding KV is not
 * enough), one session open; the in-session prompts/list and what it must hold.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { Miniflare } from 'miniflare';
import { Agent, agentText } from '../lib/http.mjs';
import { JSON_HEADERS, PROTOCOL, rpcResult } from '../lib/jsonrpc.mjs';
import { gatewayBaseOptions } from '../lib/miniflare-options.mjs';
import { openSession } from '../lib/mcp-session.mjs';
import { PROMPTS } from '../lib/prompts.mjs';
import { ADMIN_TOKEN, LIST_BODY, PAGE_SIZE, SIGNING_SECRET, UPSTREAM_TIMEOUT_MS } from './settings.mjs';

function gatewayOptions(h, build, wcfg, upstreams, logs) {
  const ups = upstreams.map((u) => ({ id: u.id, url: u.url, timeout: UPSTREAM_TIMEOUT_MS }));
  return {
    ...gatewayBaseOptions(build, wcfg, 'bench'),
    bindings: {
      ...wcfg.vars,
      PAGE_SIZE: String(PAGE_SIZE),
      UPSTREAMS: JSON.stringify(ups),
      UPSTREAM_ALLOW_HTTP_LOOPBACK: 'true',
      SIGNING_SECRET,
      ADMIN_TOKEN,
      AUTH: 'none',
    },
    handleStructuredLogs: ({ level, message }) => {
      if (level === 'warn' || level === 'error') {
        logs.push({ level, message });
        if (logs.length <= 10) h.log(`[workerd ${level}] ${message.slice(0, 300)}`);
      }
    },
  };
}

/** A gateway on Miniflare, the 20 local prompts published, one session open. */
export async function startGateway(h, build, wcfg, upstreams, name) {
  const logs = [];
  const t0 = performance.now();
  const mf = new Miniflare(gatewayOptions(h, build, wcfg, upstreams, logs));
  const untrack = h.onCleanup(name, () => mf.dispose());
  const base = await mf.ready;
  const readyMs = performance.now() - t0;
  const agent = new Agent({ connections: 4 });
  const g = {
    name,
    logs,
    readyMs,
    agent,
    url: new URL('/mcp', base).href,
    dispose: async () => {
      untrack();
      await agent.close().catch(() => undefined);
      await mf.dispose();
    },
  };
  const pub = await agentText(agent, new URL('/admin/publish?prune=1', base).href, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompts: PROMPTS }),
  });
  if (pub.status !== 200) throw new Error(`${name}: publish: HTTP ${pub.status}: ${pub.text.slice(0, 500)}`);
  g.publishMs = pub.ms;
  const send = (url, req) => agentText(agent, url, req);
  const clientInfo = { name: 'promptgate-bench', version: '1.0.0' };
  g.sessionId = (
    await openSession(send, g.url, { clientInfo, initialized: true, what: `${name} initialize` })
  ).sessionId;
  g.headers = { ...JSON_HEADERS, 'mcp-protocol-version': PROTOCOL, 'mcp-session-id': g.sessionId };
  return g;
}

export const list = (g) => agentText(g.agent, g.url, { headers: g.headers, body: LIST_BODY });

/** The 20 local prompts and every upstream's (namespaced), on one page. */
export function checkList(result, upstreams, what) {
  const names = result.prompts?.map((p) => p.name) ?? [];
  const want = [
    ...PROMPTS.map((p) => p.name),
    ...upstreams.flatMap((u) => u.prompts.map((p) => `${u.id}.${p.name}`)),
  ].sort();
  const missing = want.filter((n) => !names.includes(n));
  if (missing.length || names.length !== want.length || result.nextCursor !== undefined) {
    throw new Error(
      `${what}: expected ${want.length} prompts on one page, got ${names.length}` +
        (missing.length ? `; missing ${missing.length}: ${missing.slice(0, 6).join(', ')}…` : '') +
        (result.nextCursor ? '; has nextCursor' : ''),
    );
  }
}

/** A checked list on `g`, two in a row giving the same bytes: the plan autocannon then expects byte for byte. */
export async function verifiedPlan(g, upstreams) {
  const bodies = [];
  for (let i = 0; i < 2; i++) {
    const r = await list(g);
    checkList(rpcResult(r, `${g.name} prompts/list`, 1), upstreams, `${g.name} prompts/list`);
    bodies.push(r.text);
  }
  assert.equal(bodies[0], bodies[1], `${g.name}: two identical prompts/list requests got different bodies`);
  return {
    url: g.url,
    headers: g.headers,
    body: LIST_BODY,
    expectBody: bodies[0],
    bytes: Buffer.byteLength(bodies[0]),
  };
}
