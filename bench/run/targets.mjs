/**
 * The long-lived targets of `npm run bench`: the ceiling, three gateway instances (default
 * settings; SESSION_RECHECK_MS=0; one of its own for `initialize`) and the SDK peer, each
 * gateway seeded with the bench catalog and, where the scenarios run in session, one session.
 */
import { gatewayBaseOptions, ceilingOptions } from '../lib/miniflare-options.mjs';
import { fetchText } from '../lib/http.mjs';
import { openSession } from '../lib/mcp-session.mjs';
import { listResult } from '../lib/prompts.mjs';
import { seedCatalog } from '../lib/seed.mjs';
import { startMiniflare, startPeer } from '../lib/start-target.mjs';
import { ceilingPath, getPage, replayedHeaders, requestFor } from './checks.mjs';
import { DO_STORAGE, SCENARIOS, SIGNING_SECRET } from './settings.mjs';

export function gatewayOptions(build, wcfg, overrides = {}) {
  return {
    ...gatewayBaseOptions(build, wcfg, 'bench'),
    unsafeEphemeralDurableObjects: DO_STORAGE === 'memory',
    bindings: { ...wcfg.vars, SIGNING_SECRET, AUTH: 'none', ...overrides },
  };
}

const CLIENT_INFO = { name: 'promptgate-bench', version: '1.0.0' };
export const openBenchSession = async (url) =>
  (await openSession(fetchText, url, { clientInfo: CLIENT_INFO })).sessionId;

/**
 * The ceiling's answers: for each POST scenario it runs in, the bytes and headers the scenario's
 * gateway returned (checked again in verify), by the path the ceiling is asked on (checks.mjs).
 * Every GET scenario reads the one GET /prompts page: its headers are `get`.
 */
async function ceilingAnswers(targets) {
  const bodies = {};
  const headers = {};
  let get;
  for (const s of SCENARIOS) {
    if (!s.targets.includes('ceiling')) continue;
    const gateway = targets[s.targets.find((t) => targets[t]?.kind === 'gateway')];
    const req = requestFor(s, gateway);
    const r = await fetchText(req.url, req);
    if (r.status !== 200)
      throw new Error(`${s.id} on ${gateway.id}: HTTP ${r.status} while reading the ceiling's answer`);
    if (s.method === 'GET') get = replayedHeaders(r.headers);
    else {
      headers[ceilingPath(s)] = replayedHeaders(r.headers);
      bodies[ceilingPath(s)] = r.text;
    }
  }
  return { bodies, headers, get };
}

/** Starts every target (Miniflare instances one at a time, see startMiniflare); resolves the targets by id. */
export async function startTargets(h, gatewayBuild, ceilingBuild, wcfg) {
  const peerStarting = startPeer(h);
  const gateway = await startMiniflare(h, gatewayOptions(gatewayBuild, wcfg), 'gateway');
  const gateway0 = await startMiniflare(
    h,
    gatewayOptions(gatewayBuild, wcfg, { SESSION_RECHECK_MS: '0' }),
    'gateway (SESSION_RECHECK_MS=0)',
  );
  const gatewayInit = await startMiniflare(h, gatewayOptions(gatewayBuild, wcfg), 'gateway (initialize)');
  const peer = await peerStarting;
  await Promise.all([seedCatalog(gateway.mf), seedCatalog(gateway0.mf), seedCatalog(gatewayInit.mf)]);
  const recheckDefault = wcfg.vars.SESSION_RECHECK_MS ?? '2000'; // src/lib/config.ts falls back to 2000
  if (!(Number(recheckDefault) > 0))
    throw new Error(
      `the session-check comparison needs SESSION_RECHECK_MS > 0 in wrangler.toml, got ${recheckDefault}`,
    );
  const targets = {
    gateway: {
      id: 'gateway',
      kind: 'gateway',
      label: 'gateway',
      url: gateway.url,
      sessionId: await openBenchSession(gateway.url),
    },
    'gateway-recheck0': {
      id: 'gateway-recheck0',
      kind: 'gateway',
      label: 'gateway, SESSION_RECHECK_MS=0 (DO every request)',
      url: gateway0.url,
      sessionId: await openBenchSession(gateway0.url),
    },
    'gateway-init': { id: 'gateway-init', kind: 'gateway', label: 'gateway', url: gatewayInit.url },
    peer: { id: 'peer', kind: 'peer', label: 'SDK McpServer (Node, stateless)', url: peer.url },
  };
  // The ceiling gets the same request bytes as the gateway (session id included), and answers
  // each with the gateway's response bytes.
  const answers = await ceilingAnswers(targets);
  const bodies = {
    CEILING_BODY: JSON.stringify({ jsonrpc: '2.0', id: 1, result: listResult() }),
    CEILING_BODIES: JSON.stringify(answers.bodies),
    CEILING_HEADERS: JSON.stringify(answers.headers),
    CEILING_GET_BODY: JSON.stringify(getPage(wcfg)),
    ...(answers.get && { CEILING_GET_HEADERS: JSON.stringify(answers.get) }),
  };
  const ceiling = await startMiniflare(h, ceilingOptions(ceilingBuild, wcfg, bodies), 'ceiling');
  targets.ceiling = {
    id: 'ceiling',
    kind: 'ceiling',
    label: "ceiling (bare Hono Worker, the gateway's bytes)",
    url: ceiling.url,
    sessionId: targets.gateway.sessionId,
    bodies: answers.bodies,
    headers: answers.headers,
    getHeaders: answers.get,
  };
  targets.gateway.recheckMs = recheckDefault;
  const instances = { ceiling, gateway, 'gateway-recheck0': gateway0, 'gateway-init': gatewayInit, peer };
  for (const [t, inst] of Object.entries(instances)) targets[t].pid = inst.pid;
  return targets;
}
