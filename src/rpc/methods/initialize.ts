/**
 * initialize: version negotiation, capabilities and server identity.
 * Session creation is the legacy entry's job; this only builds the result.
 */
import type { ClientCapabilities, Implementation, InitializeResult } from '@modelcontextprotocol/sdk/types.js';
import pkg from '../../../package.json' with { type: 'json' };
import { featuresOf, negotiate, type LegacyVersion } from '../../lib/versions.js';
import { invalidParams } from '../errors.js';
import type { Params } from '../envelope.js';

export const INSTRUCTIONS =
  'promptgate serves shared prompt templates. List them with prompts/list and fetch one with prompts/get; ' +
  'argument values can be completed with completion/complete. The list changes when prompts are published ' +
  '(notifications/prompts/list_changed).';

export interface InitializeRequest {
  version: LegacyVersion;
  clientInfo?: Implementation;
  capabilities?: ClientCapabilities;
}

export function readInitialize(params: Params): InitializeRequest {
  if (typeof params?.protocolVersion !== 'string') throw invalidParams('initialize needs params.protocolVersion (a string)');
  const req: InitializeRequest = { version: negotiate(params.protocolVersion) };
  if (typeof params.clientInfo === 'object' && params.clientInfo !== null) req.clientInfo = params.clientInfo as Implementation;
  if (typeof params.capabilities === 'object' && params.capabilities !== null) req.capabilities = params.capabilities as ClientCapabilities;
  return req;
}

export function initializeResult(version: LegacyVersion): InitializeResult {
  const f = featuresOf(version);
  const serverInfo: Implementation = { name: 'promptgate', version: pkg.version };
  if (f.titles) serverInfo.title = 'promptgate';
  if (f.icons) {
    serverInfo.description = 'Shared MCP prompt templates for your organisation';
    serverInfo.websiteUrl = 'https://github.com/promptgate/promptgate';
  }
  return {
    protocolVersion: version,
    capabilities: { prompts: { listChanged: true }, completions: {}, logging: {} },
    serverInfo,
    instructions: INSTRUCTIONS,
  };
}
