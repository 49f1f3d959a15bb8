/**
 * Which protocol era a POST body speaks. A body whose params carry
 * `_meta["io.modelcontextprotocol/protocolVersion"]` is modern (2026-07-28);
 * anything else is legacy. The body decides, not headers (spec §6).
 */
import { isModernVersion, MODERN_VERSION_META } from '../lib/versions.js';

export type Era = 'legacy' | 'modern';

function carriesModernMeta(m: unknown): boolean {
  if (typeof m !== 'object' || m === null) return false;
  const params = (m as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null) return false;
  const meta = (params as { _meta?: unknown })._meta;
  return typeof meta === 'object' && meta !== null && MODERN_VERSION_META in meta;
}

/**
 * A single message sent with a modern MCP-Protocol-Version header is modern
 * even without the envelope (the SDK v2 rule), so it gets the modern 400
 * -32602 for the missing `_meta` rather than a legacy version error.
 */
export function eraOf(body: unknown, headerVersion?: string): Era {
  if (Array.isArray(body)) return body.some(carriesModernMeta) ? 'modern' : 'legacy';
  return carriesModernMeta(body) || (headerVersion !== undefined && isModernVersion(headerVersion.trim())) ? 'modern' : 'legacy';
}
