/**
 * What an era entry receives from the route (Transport) and what a method
 * handler may use (CallContext): the revision, the session (legacy only),
 * and the catalog of the moment. Built once per HTTP request.
 */
import type { Catalog } from '../catalog/catalog.js';
import { currentCatalog } from '../catalog/store.js';
import type { Config } from '../lib/config.js';
import type { ProtocolVersion } from '../lib/versions.js';
import type { Era } from './era.js';
import type { Params } from './envelope.js';

/** The HTTP request as the era entries need it, already past the route's guards. */
export interface Transport {
  readonly env: Env;
  readonly cfg: Config;
  readonly secret: string;
  readonly waitUntil: (p: Promise<unknown>) => void;
  readonly sessionId: string | undefined;
  readonly protocolVersion: string | undefined;
  /** Any other request header, by lower-case name (Mcp-Method, Mcp-Name, Authorization). */
  readonly header: (name: string) => string | undefined;
  /** The request URL (edge-cache keys live under its origin). */
  readonly url: string;
}

export interface CallContext {
  readonly env: Env;
  readonly cfg: Config;
  readonly secret: string;
  readonly era: Era;
  readonly version: ProtocolVersion;
  /** The legacy session; empty in the modern era, which has none. */
  readonly sessionId: string;
  readonly waitUntil: (p: Promise<unknown>) => void;
  readonly url: string;
  readonly header: (name: string) => string | undefined;
  catalog(): Promise<Catalog>;
}

export type Handler = (params: Params, ctx: CallContext) => unknown;

export function callContext(t: Transport, era: Era, version: ProtocolVersion, sessionId = ''): CallContext {
  return {
    env: t.env,
    cfg: t.cfg,
    secret: t.secret,
    era,
    version,
    sessionId,
    waitUntil: t.waitUntil,
    get url() {
      return t.url;
    },
    header: t.header,
    catalog: () => currentCatalog(t.env.PROMPTS, t.cfg.catalogRefreshMs, t.waitUntil),
  };
}
