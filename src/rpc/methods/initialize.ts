/**
 * initialize (legacy era): version negotiation, capabilities and server
 * identity. Session creation is the legacy entry's job; this only builds
 * the result.
 */
import type { ClientCapabilities, Implementation, InitializeResult } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../../lib/config.js';
import { negotiate, type LegacyVersion } from '../../lib/versions.js';
import { invalidParams } from '../errors.js';
import { RawJson, type Params } from '../envelope.js';
import { capabilitiesOf, INSTRUCTIONS, serverInfo } from '../server-info.js';

export interface InitializeRequest {
  version: LegacyVersion;
  clientInfo?: Implementation;
  capabilities?: ClientCapabilities;
}

export function readInitialize(params: Params): InitializeRequest {
  if (typeof params?.protocolVersion !== 'string')
    throw invalidParams('initialize needs params.protocolVersion (a string)');
  const req: InitializeRequest = { version: negotiate(params.protocolVersion) };
  if (typeof params.clientInfo === 'object' && params.clientInfo !== null)
    req.clientInfo = params.clientInfo as Implementation;
  if (typeof params.capabilities === 'object' && params.capabilities !== null) req.capabilities = params.capabilities;
  return req;
}

/** The result depends on the revision and the deployment's config only: serialized once per pair. */
const results = new WeakMap<Config, Map<LegacyVersion, RawJson>>();

export function initializeResult(version: LegacyVersion, cfg: Config): RawJson {
  let byVersion = results.get(cfg);
  if (!byVersion) results.set(cfg, (byVersion = new Map<LegacyVersion, RawJson>()));
  let raw = byVersion.get(version);
  if (!raw) {
    const result: InitializeResult = {
      protocolVersion: version,
      capabilities: capabilitiesOf(false, cfg),
      serverInfo: serverInfo(version),
      instructions: INSTRUCTIONS,
    };
    byVersion.set(version, (raw = new RawJson(JSON.stringify(result))));
  }
  return raw;
}
