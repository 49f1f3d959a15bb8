/**
 * What a method handler may use: the negotiated revision, the session, and
 * the catalog of the moment. Built once per HTTP request by the era entry.
 */
import type { Catalog } from '../catalog/catalog.js';
import type { Config } from '../lib/config.js';
import type { LegacyVersion } from '../lib/versions.js';
import type { Params } from './envelope.js';

export interface CallContext {
  readonly env: Env;
  readonly cfg: Config;
  readonly secret: string;
  readonly version: LegacyVersion;
  readonly sessionId: string;
  readonly waitUntil: (p: Promise<unknown>) => void;
  catalog(): Promise<Catalog>;
}

export type Handler = (params: Params, ctx: CallContext) => unknown;
