/**
 * What the layers below the routes know of the request they serve: the
 * parsed config, the signing secret, the URL and headers (read on demand),
 * background work, and the principal once access control sets one. Built
 * once per request in routes/scope.ts; rpc/ and catalog/ take it as it is,
 * so neither needs Hono.
 */
import type { Config } from './config.js';
import type { RequestRecord } from './record.js';

/** How a principal proved who it is (docs/access-control.md). */
export type AuthMethod = 'oauth' | 'access' | 'apikey' | 'admin' | 'none';

/** Who is asking, as routes/auth.ts establishes it once per request (docs/access-control.md). */
export interface Principal {
  /**
   * Stable and unique (`oauth:<iss>#<sub>`, `access:<team>#<sub>`, `key:<id>`, `admin`, `anonymous`,
   * `unauthenticated` when no credential was accepted); never a credential.
   */
  readonly id: string;
  readonly method: AuthMethod;
  /** For people: a name or e-mail; for keys: the key's name. */
  readonly name: string | undefined;
  readonly groups: readonly string[];
  readonly scopes: ReadonlySet<string>;
  /** Sees every prompt and may use the admin API. */
  readonly admin: boolean;
  /** Epoch ms when the credential stops being valid, if it ever does. */
  readonly expiresAt: number | undefined;
  /** Whether the credential is still good now (a revoked key turns false); streams ask at each keepalive. */
  recheck(): boolean | Promise<boolean>;
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
   * A request header by lower-case name, from the request's headers object (read from the runtime
   * once). Authorization is only ever used as a digest (private cache pages, relayed state), never
   * stored, logged or forwarded.
   */
  header(name: string): string | undefined;
  /** Mcp-Session-Id, read on first use and kept. */
  readonly sessionId: string | undefined;
  /** MCP-Protocol-Version, read on first use and kept. */
  readonly protocolVersion: string | undefined;
  /** Set by routes/auth.ts before /mcp, /prompts and /admin run (`anonymous` with AUTH=none). */
  readonly principal: Principal;
  /** What the request did, for its log line, span, Server-Timing and usage (lib/record.ts). */
  readonly record: RequestRecord;
  /**
   * Aborts when the client goes away (compatibility flag `enable_request_signal`): a long-lived
   * stream ends on it rather than waiting for a write to fail, which some runtimes never report.
   */
  readonly signal: AbortSignal | undefined;
}
