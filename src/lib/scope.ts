/**
 * What the layers below the routes know of the request they serve: the
 * parsed config, the signing secret, the URL and headers (read on demand),
 * background work, and the principal once access control sets one. Built
 * once per request in routes/scope.ts; rpc/ and catalog/ take it as it is,
 * so neither needs Hono.
 */
import type { Config } from './config.js';

/** Who is asking, as access control will establish it. Nothing sets it yet: every request is anonymous. */
export interface Principal {
  readonly id: string;
}

export interface RequestScope {
  readonly env: Env;
  readonly cfg: Config;
  /** SIGNING_SECRET (sessions, cursors, relayed state). Throws MissingSecretError when it is not configured. */
  readonly secret: string;
  readonly waitUntil: (p: Promise<unknown>) => void;
  /** The request URL: edge-cache keys live under its origin. */
  readonly url: string;
  /**
   * A request header by lower-case name, read from the runtime on each call. Authorization is only
   * ever used as a digest (private cache pages, relayed state), never stored, logged or forwarded.
   */
  header(name: string): string | undefined;
  /** Mcp-Session-Id, read on first use and kept. */
  readonly sessionId: string | undefined;
  /** MCP-Protocol-Version, read on first use and kept. */
  readonly protocolVersion: string | undefined;
  readonly principal: Principal | undefined;
}
