/**
 * Protocol revisions this gateway speaks, and what each one knows.
 *
 * Owns: the supported-version list, initialize negotiation and the feature
 * gates that decide which fields a response may carry. Kept as plain data so
 * every layer (session tokens, rpc shaping, tests) shares one truth.
 */

/** Legacy (session-based) revisions, newest first. */
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export type LegacyVersion = (typeof LEGACY_VERSIONS)[number];

export const LATEST_LEGACY: LegacyVersion = '2025-11-25';

/** Modern (stateless, per-request `_meta`) revisions, newest first. */
export const MODERN_VERSIONS = ['2026-07-28'] as const;
export type ModernVersion = (typeof MODERN_VERSIONS)[number];
export type ProtocolVersion = LegacyVersion | ModernVersion;

/** Every revision served at /mcp, newest first (what -32022 errors offer). */
export const SUPPORTED_VERSIONS: readonly ProtocolVersion[] = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];

/** Reserved `_meta` keys of the modern envelope (spec 2026-07-28, basic/index). */
export const MODERN_VERSION_META = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';
export const CLIENT_INFO_META = 'io.modelcontextprotocol/clientInfo';
export const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo';
export const SUBSCRIPTION_ID_META = 'io.modelcontextprotocol/subscriptionId';

export function isModernVersion(v: unknown): v is ModernVersion {
  return typeof v === 'string' && (MODERN_VERSIONS as readonly string[]).includes(v);
}

export function isLegacyVersion(v: unknown): v is LegacyVersion {
  return typeof v === 'string' && (LEGACY_VERSIONS as readonly string[]).includes(v);
}

/** Echo a supported request version, otherwise offer the latest (the client decides whether to stay). */
export function negotiate(requested: unknown): LegacyVersion {
  return isLegacyVersion(requested) ? requested : LATEST_LEGACY;
}

/** What a negotiated revision may see in a response. */
export interface Features {
  /** `title` on prompts, arguments and Implementation (2025-06-18+). */
  readonly titles: boolean;
  /** `icons`, Implementation `description`/`websiteUrl` (2025-11-25+). */
  readonly icons: boolean;
  /** `resource_link` content blocks (2025-06-18+). */
  readonly resourceLinks: boolean;
  /** JSON-RPC batches are legal only on 2025-03-26 sessions. */
  readonly batches: boolean;
  /** SSE priming events are safe only for 2025-11-25+ clients. */
  readonly priming: boolean;
}

const FEATURES: Record<ProtocolVersion, Features> = {
  '2026-07-28': { titles: true, icons: true, resourceLinks: true, batches: false, priming: false },
  '2025-11-25': { titles: true, icons: true, resourceLinks: true, batches: false, priming: true },
  '2025-06-18': { titles: true, icons: false, resourceLinks: true, batches: false, priming: false },
  '2025-03-26': { titles: false, icons: false, resourceLinks: false, batches: true, priming: false },
};

export function featuresOf(v: ProtocolVersion): Features {
  return FEATURES[v];
}

/** Compact, stable index used inside signed session ids. */
export function versionIndex(v: LegacyVersion): number {
  return LEGACY_VERSIONS.indexOf(v);
}

export function versionAt(i: number): LegacyVersion | undefined {
  return LEGACY_VERSIONS[i];
}
