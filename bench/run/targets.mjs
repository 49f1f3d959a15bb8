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
import { getPage } from './checks.mjs';
import { DO_STORAGE, SIGNING_SECRET } from './settings.mjs';

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

/** Starts every target (Miniflare instances one at a time, see startMiniflare); resolves the targets by id. */
export async function startTargets(h, gatewayBuild, ceilingBuild, wcfg) {
  const ceilingBody = JSON.stringify({ jsonrpc: '2.0', id: 1, result: listResult() });
  const peerStarting = startPeer(h);
  const bodies = { CEILING_BODY: ceilingBody, CEILING_GET_BODY: JSON.stringify(getPage(wcfg)) };
  const ceiling = await startMiniflare(h, ceilingOptions(ceilingBuild, wcfg, bodies), 'ceiling');
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
    ceiling: { id: 'ceiling', kind: 'ceiling', label: 'ceiling (bare Hono Worker, fixed response)', url: ceiling.url },
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
  // The ceiling gets the same request bytes as the gateway (session id included).
  targets.ceiling.sessionId = targets.gateway.sessionId;
  targets.gateway.recheckMs = recheckDefault;
  const instances = { ceiling, gateway, 'gateway-recheck0': gateway0, 'gateway-init': gatewayInit, peer };
  for (const [t, inst] of Object.entries(instances)) targets[t].pid = inst.pid;
  return targets;
}
