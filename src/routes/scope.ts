/**
 * The one place a request's RequestScope (lib/scope.ts) is built, kept on
 * the Hono context so that a middleware (access control, next) and the
 * handler share it. Light on the warm path: one object and one closure
 * (waitUntil). Each read of the request's URL, method or headers object
 * crosses into the runtime, and Hono's `c.req.header()` makes two such
 * crossings per header, so the scope reads each of the three at most once,
 * on first use, and each header from the one headers object.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../env.js';
import { configOf, signingSecretOf, type Config } from '../lib/config.js';
import type { Principal, RequestScope } from '../lib/scope.js';
import { RequestRecord } from '../lib/record.js';
import { NOBODY } from '../auth/principal.js';
import { SESSION_HEADER } from '../rpc/legacy-session.js';

/** Not read yet (a header that is absent reads as undefined). */
const UNREAD = null;

class HonoScope implements RequestScope {
  readonly env: Env;
  readonly cfg: Config;
  readonly waitUntil: (p: Promise<unknown>) => void;
  /** NOBODY until access control has run (routes/auth.ts; the web pages set it themselves, routes/web.ts). */
  principal: Principal = NOBODY;
  readonly record = new RequestRecord();
  readonly #c: Context<AppEnv>;
  #sessionId: string | undefined | typeof UNREAD = UNREAD;
  #protocolVersion: string | undefined | typeof UNREAD = UNREAD;
  #url: string | undefined;
  #method: string | undefined;
  /** The headers of the request as it arrived (a body re-wrapped by guards.ts keeps the same headers). */
  #headers: Headers | undefined;
  /** The request as it arrived: its signal is the client's connection, whatever guards.ts re-wraps. */
  readonly #raw: Request;

  constructor(c: Context<AppEnv>) {
    this.#c = c;
    this.#raw = c.req.raw;
    this.env = c.env;
    this.cfg = configOf(c.env);
    this.waitUntil = (p) => c.executionCtx.waitUntil(p);
  }

  get secret(): string {
    return signingSecretOf(this.cfg);
  }

  get signal(): AbortSignal | undefined {
    return this.#raw.signal;
  }

  get url(): string {
    return (this.#url ??= this.#c.req.url);
  }

  get method(): string {
    return (this.#method ??= this.#c.req.method);
  }

  header(name: string): string | undefined {
    return (this.#headers ??= this.#c.req.raw.headers).get(name) ?? undefined;
  }

  get sessionId(): string | undefined {
    if (this.#sessionId === UNREAD) this.#sessionId = this.header(SESSION_HEADER);
    return this.#sessionId;
  }

  get protocolVersion(): string | undefined {
    if (this.#protocolVersion === UNREAD) this.#protocolVersion = this.header('mcp-protocol-version');
    return this.#protocolVersion;
  }
}

/** The request's scope, built on first use. */
export function scopeOf(c: Context<AppEnv>): RequestScope {
  let scope = c.get('scope');
  if (!scope) c.set('scope', (scope = new HonoScope(c)));
  return scope;
}

/** The request's method, read from the runtime once per request. */
export const methodOf = (c: Context<AppEnv>): string => (scopeOf(c) as HonoScope).method;

/** A request header by lower-case name, through the request's scope (one crossing per header). */
export const headerOf = (c: Context<AppEnv>, name: string): string | undefined => scopeOf(c).header(name);

/**
 * Whether the request is the MCP endpoint's: its errors take the JSON-RPC shape and its calls are
 * counted as usage. One rule for both, so `/mcpx` is never half one and half the other.
 */
export const onMcp = (c: Context<AppEnv>): boolean => {
  const path = c.req.path;
  return path === '/mcp' || path.startsWith('/mcp/');
};

/** Access control's answer (routes/auth.ts), set once per request. */
export function setPrincipal(scope: RequestScope, principal: Principal): void {
  (scope as HonoScope).principal = principal;
}

/**
 * The scope of a route that signs (sessions, cursors): without SIGNING_SECRET
 * the request fails here, before any work, rather than halfway through a method.
 */
export function signingScopeOf(c: Context<AppEnv>): RequestScope {
  const scope = scopeOf(c);
  signingSecretOf(scope.cfg);
  return scope;
}
