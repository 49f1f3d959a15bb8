/**
 * The upstreams of `npm run bench:aggregate`: starting each (targets/upstream.mjs, its own
 * child process) with a reader for its request log, and timing its own cold sequence from Node.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent, agentText } from '../lib/http.mjs';
import { JSON_HEADERS, MODERN, PROTOCOL, notification, rpc, rpcResult } from '../lib/jsonrpc.mjs';
import { BENCH_DIR } from '../lib/paths.mjs';
import { upstreamPrompts } from './upstream-prompts.mjs';

/** Starts upstream `index` (registered for cleanup); its requests log is read over HTTP. */
export async function startUpstream(h, index) {
  const id = `up${index + 1}`;
  const { child, port } = await h.startPortChild(
    [join(BENCH_DIR, 'targets', 'upstream.mjs'), String(index)],
    `upstream ${id}`,
  );
  const base = `http://127.0.0.1:${port}`;
  const readLog = async (from = 0) =>
    JSON.parse((await agentText(undefined, `${base}/__log?from=${from}`, { method: 'GET', headers: {} })).text);
  return { id, url: `${base}/mcp`, prompts: upstreamPrompts(index + 1), pid: child.pid, readLog };
}

const CLIENT_INFO = { name: 'promptgate', version: '0.1.0' };
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
};

/**
 * The upstream's own cold latency: the sequence the official SDK client runs to list a
 * legacy server, timed from Node on a fresh connection: initialize,
 * notifications/initialized (its 202 awaited), prompts/list. The gateway's client
 * overlaps its server/discover probe with the initialize and its first request with the
 * initialized notification (src/catalog/upstreams/client.ts); here the probe is sent
 * first, on its own, only to check that the upstream answers it like a legacy server,
 * and is not timed.
 */
export async function directSequence(u) {
  const agent = new Agent({ connections: 1 });
  const steps = {};
  try {
    const step = async (name, body, headers) => {
      const r = await agentText(agent, u.url, { headers: { ...JSON_HEADERS, ...headers }, body });
      steps[name] = r.ms;
      return r;
    };
    const probe = await step('discover', rpc('server/discover', { _meta: META }, 1), {
      'mcp-protocol-version': MODERN,
      'mcp-method': 'server/discover',
    });
    assert.equal(probe.status, 400, `${u.id}: server/discover probe should get 400 from a legacy server`);
    delete steps.discover;
    const t0 = performance.now();
    const init = await step(
      'initialize',
      rpc('initialize', { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: CLIENT_INFO }, 2),
      {},
    );
    const version = rpcResult(init, `${u.id} initialize`, 2).protocolVersion;
    const legacy = { 'mcp-protocol-version': version, 'mcp-session-id': init.headers['mcp-session-id'] };
    const note = await step('initialized', notification('notifications/initialized'), legacy);
    assert.equal(note.status, 202, `${u.id}: notifications/initialized`);
    const list = await step('list', rpc('prompts/list', {}, 3), legacy);
    assert.equal(rpcResult(list, `${u.id} prompts/list`, 3).prompts.length, u.prompts.length);
    const totalMs = performance.now() - t0;
    await agentText(agent, u.url, { method: 'DELETE', headers: legacy }).catch(() => undefined);
    return { totalMs, steps };
  } finally {
    await agent.close();
  }
}
