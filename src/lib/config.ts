/**
 * Typed, validated view of the Worker's vars and secrets.
 *
 * Parsed once per `env` object (an isolate keeps the same one), so the hot
 * path reads plain fields. Bad values fail loudly with the var's name rather
 * than falling back silently: a gateway with a typo in its TTL should not
 * start pretending it has a different one.
 */

import {
  int,
  localPrefixOf,
  MissingSecretError,
  onOff,
  parseOrigins,
  separatorOf,
  tagsOf,
  type OriginPattern,
  type Vars,
} from './config-vars.js';

export interface Config {
  readonly allowedOrigins: readonly OriginPattern[];
  readonly pageSize: number;
  readonly sessionTtlMs: number;
  readonly sessionRecheckMs: number;
  readonly catalogRefreshMs: number;
  readonly maxBodyBytes: number;
  readonly sseKeepaliveMs: number;
  readonly sseRetryMs: number;
  readonly notifyCoalesceMs: number;
  readonly registryShards: number;
  /** Streams one registry shard accepts before it refuses new ones (503): its memory holds them all when awake. */
  readonly shardMaxStreams: number;
  /** Streams one client address may hold at one registry shard (429 past it): no one client fills a shard. */
  readonly shardMaxClientStreams: number;
  /** Separator between an upstream's prefix and its prompt names. */
  readonly separator: string;
  /** Optional prefix for local prompts (LOCAL_PREFIX); empty keeps them unprefixed. */
  readonly localPrefix: string;
  /** Raw UPSTREAMS JSON; parsed and validated by catalog/upstreams/config.ts. */
  readonly upstreamsJson: string;
  readonly allowHttpLoopback: boolean;
  readonly upstreamPollMs: number;
  /** `ttlMs` of list and discover results (before upstream hints narrow it); 0 = do not cache. */
  readonly listTtlMs: number;
  /** A `subscriptions/listen` stream ends gracefully after this long; the client re-listens. */
  readonly listenMaxMs: number;
  /** Limits on prompts/get arguments and rendered output (docs/configuration.md, "Limits"). */
  readonly limits: ArgumentLimits;
  /** Rate limiting on /mcp and /admin (the *_RATE_LIMIT bindings); "off" only for load tests. */
  readonly rateLimits: boolean;
  /** Usage counting (docs/observability.md, "Usage"); USAGE=off is the benchmark's baseline. */
  readonly usage: boolean;
  /** How long after the first uncounted call an isolate flushes its tally (a waitUntil must end within 30 s). */
  readonly usageFlushMs: number;
  /** Hourly usage rows older than this many days are pruned by the UsageStore. */
  readonly usageRetentionDays: number;
  /** A span per JSON-RPC call through Workers tracing (rpc/span.ts); "off" is the benchmark's baseline. */
  readonly traceSpans: boolean;
  /** Prompts mirrored as tools (TOOLS_MIRROR, off by default; docs/tools-mirror.md). */
  readonly toolsMirror: boolean;
  /** Only prompts with one of these tags are mirrored (TOOLS_MIRROR_TAGS); empty: every prompt that does not opt out. */
  readonly toolsMirrorTags: readonly string[];
  /** The Skills extension (SKILLS, on by default; docs/skills.md): skills/list, skills/get and skill:// resources. */
  readonly skills: boolean;
  /** Undefined when the secret is unset; read it through signingSecretOf (one check, one error). */
  readonly signingSecret: string | undefined;
}

export interface ArgumentLimits {
  /** Most arguments in one request, declared or not. */
  readonly maxArguments: number;
  /** Largest single value, in UTF-8 bytes. */
  readonly maxArgumentBytes: number;
  /** Largest sum of all values, in UTF-8 bytes. */
  readonly maxArgumentsBytes: number;
  /** Largest text that substitution may produce for one prompts/get, in UTF-8 bytes. */
  readonly maxRenderedBytes: number;
}

/** The one check for the signing secret. */
export function signingSecretOf(cfg: Config): string {
  if (cfg.signingSecret === undefined) throw new MissingSecretError();
  return cfg.signingSecret;
}

const cache = new WeakMap<object, Config>();

export function configOf(env: Env): Config {
  let c = cache.get(env);
  if (c) return c;
  const vars = env as unknown as Vars;
  c = {
    allowedOrigins: parseOrigins(String(vars.ALLOWED_ORIGINS ?? '')),
    pageSize: int(vars, 'PAGE_SIZE', 50, 1, 500),
    sessionTtlMs: int(vars, 'SESSION_TTL_SECONDS', 3600, 10, 30 * 86400) * 1000,
    sessionRecheckMs: int(vars, 'SESSION_RECHECK_MS', 2000, 0, 60_000),
    catalogRefreshMs: int(vars, 'CATALOG_REFRESH_MS', 2000, 0, 300_000),
    maxBodyBytes: int(vars, 'MAX_BODY_BYTES', 1_048_576, 1024, 16 * 1_048_576),
    sseKeepaliveMs: int(vars, 'SSE_KEEPALIVE_MS', 20_000, 50, 25_000),
    sseRetryMs: int(vars, 'SSE_RETRY_MS', 3000, 0, 600_000),
    notifyCoalesceMs: int(vars, 'NOTIFY_COALESCE_MS', 250, 0, 60_000),
    registryShards: int(vars, 'REGISTRY_SHARDS', 16, 1, 4096),
    shardMaxStreams: int(vars, 'SHARD_MAX_STREAMS', 10_000, 1, 1_000_000),
    shardMaxClientStreams: int(vars, 'SHARD_MAX_CLIENT_STREAMS', 1_000, 1, 1_000_000),
    separator: separatorOf(vars.UPSTREAM_SEPARATOR),
    localPrefix: localPrefixOf(vars.LOCAL_PREFIX, separatorOf(vars.UPSTREAM_SEPARATOR)),
    upstreamsJson: typeof vars.UPSTREAMS === 'string' ? vars.UPSTREAMS : '',
    allowHttpLoopback: vars.UPSTREAM_ALLOW_HTTP_LOOPBACK === 'true',
    upstreamPollMs: int(vars, 'UPSTREAM_POLL_MS', 60_000, 1_000, 86_400_000),
    listTtlMs: int(vars, 'LIST_TTL_MS', 60_000, 0, 86_400_000),
    listenMaxMs: int(vars, 'LISTEN_MAX_MS', 3_600_000, 100, 86_400_000),
    limits: {
      maxArguments: int(vars, 'MAX_ARGUMENTS', 100, 1, 10_000),
      maxArgumentBytes: int(vars, 'MAX_ARGUMENT_BYTES', 65_536, 1, 16 * 1_048_576),
      maxArgumentsBytes: int(vars, 'MAX_ARGUMENTS_BYTES', 262_144, 1, 16 * 1_048_576),
      maxRenderedBytes: int(vars, 'MAX_RENDERED_BYTES', 1_048_576, 1024, 64 * 1_048_576),
    },
    rateLimits: onOff(vars, 'RATE_LIMITS'),
    usage: onOff(vars, 'USAGE'),
    usageFlushMs: int(vars, 'USAGE_FLUSH_MS', 10_000, 10, 25_000),
    usageRetentionDays: int(vars, 'USAGE_RETENTION_DAYS', 90, 1, 3650),
    traceSpans: onOff(vars, 'TRACE_SPANS'),
    toolsMirror: onOff(vars, 'TOOLS_MIRROR', false),
    toolsMirrorTags: tagsOf(vars.TOOLS_MIRROR_TAGS),
    skills: onOff(vars, 'SKILLS'),
    signingSecret: typeof vars.SIGNING_SECRET === 'string' && vars.SIGNING_SECRET ? vars.SIGNING_SECRET : undefined,
  };
  cache.set(env, c);
  return c;
}
