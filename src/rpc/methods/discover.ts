/**
 * server/discover (2026-07-28): what a modern client learns instead of an
 * initialize handshake. Cacheable: nothing in it depends on the caller or
 * on any upstream (versions, capabilities, instructions are the gateway's
 * own), so its hints are the configured TTL, `public` — never narrowed by
 * upstream hints the way a merged prompt list is, and the same before and
 * after the first list.
 */
import { ownHints } from '../../catalog/hints.js';
import { SERVER_INFO_META, SUPPORTED_VERSIONS } from '../../lib/versions.js';
import type { CallContext } from '../context.js';
import { capabilitiesOf, INSTRUCTIONS, serverInfo } from '../server-info.js';

export function discover(_params: unknown, ctx: CallContext) {
  const { ttlMs, cacheScope } = ownHints(ctx.cfg.listTtlMs);
  return {
    supportedVersions: SUPPORTED_VERSIONS,
    capabilities: capabilitiesOf(true, ctx.cfg),
    instructions: INSTRUCTIONS,
    ttlMs,
    cacheScope,
    // The whole Implementation here; other results carry only name and version.
    _meta: { [SERVER_INFO_META]: serverInfo(ctx.version) },
  };
}
