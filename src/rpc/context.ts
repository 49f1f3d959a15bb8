/**
 * What a method handler may use (CallContext): the request's scope
 * (lib/scope.ts) with the era, revision and session the call was read in,
 * and the catalog of the moment. Built once per call, as one object.
 */
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Catalog } from '../catalog/catalog.js';
import { currentCatalog } from '../catalog/store.js';
import type { Config } from '../lib/config.js';
import type { Principal, RequestScope } from '../lib/scope.js';
import type { CallFact, RequestRecord } from '../lib/record.js';
import type { ProtocolVersion } from '../lib/versions.js';
import type { Era } from './era.js';
import type { Params } from './envelope.js';

export interface CallContext extends RequestScope {
  readonly era: Era;
  readonly version: ProtocolVersion;
  /** The legacy session; empty in the modern era, which has none. */
  readonly sessionId: string;
  /** The request's JSON-RPC id, in the session era (what its `notifications/cancelled` names: cancels.ts). */
  readonly requestId?: RequestId;
  catalog(): Promise<Catalog>;
}

/** `fact` is the call's record, for what only the method learns (the view that routed its name). */
export type Handler = (params: Params, ctx: CallContext, fact: CallFact) => unknown;

/** The scope's fields the hot path reads are copied; the rest are read through it. No closures. */
class Call implements CallContext {
  readonly env: Env;
  readonly cfg: Config;
  readonly waitUntil: (p: Promise<unknown>) => void;
  readonly record: RequestRecord;

  constructor(
    private readonly scope: RequestScope,
    readonly era: Era,
    readonly version: ProtocolVersion,
    readonly sessionId: string,
    readonly requestId?: RequestId,
  ) {
    this.env = scope.env;
    this.cfg = scope.cfg;
    this.waitUntil = scope.waitUntil;
    this.record = scope.record;
  }

  get secret(): string {
    return this.scope.secret;
  }

  get url(): string {
    return this.scope.url;
  }

  get protocolVersion(): string | undefined {
    return this.scope.protocolVersion;
  }

  get principal(): Principal {
    return this.scope.principal;
  }

  get signal(): AbortSignal | undefined {
    return this.scope.signal;
  }

  header(name: string): string | undefined {
    return this.scope.header(name);
  }

  catalog(): Promise<Catalog> {
    return currentCatalog(this);
  }
}

export function callContext(
  scope: RequestScope,
  era: Era,
  version: ProtocolVersion,
  sessionId = '',
  requestId?: RequestId,
): CallContext {
  return new Call(scope, era, version, sessionId, requestId);
}
