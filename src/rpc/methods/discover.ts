/**
 * server/discover (2026-07-28): what a modern client learns instead of an
 * initialize handshake. Cacheable, with the same hints as the prompt list,
 * since what it describes changes no more often than the catalog.
 */
import { SUPPORTED_VERSIONS } from '../../lib/versions.js';
import type { CallContext } from '../context.js';
import { capabilitiesOf, INSTRUCTIONS } from '../server-info.js';

export async function discover(_params: unknown, ctx: CallContext) {
  const hints = (await ctx.catalog()).cacheHints(ctx.cfg.listTtlMs);
  return {
    supportedVersions: SUPPORTED_VERSIONS,
    capabilities: capabilitiesOf(true),
    instructions: INSTRUCTIONS,
    ttlMs: hints.ttlMs,
    cacheScope: hints.cacheScope,
  };
}
