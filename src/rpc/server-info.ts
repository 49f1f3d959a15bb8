/**
 * Who this server is and what it offers, for both eras: the legacy
 * `initialize` result and the modern `server/discover` result and result
 * `_meta` share these, so the two eras can never describe different servers.
 */
import type { Implementation, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import pkg from '../../package.json' with { type: 'json' };
import { featuresOf, type ProtocolVersion } from '../lib/versions.js';

export const INSTRUCTIONS =
  'promptgate serves shared prompt templates. List them with prompts/list and fetch one with prompts/get; ' +
  'argument values can be completed with completion/complete. The list changes when prompts are published ' +
  '(notifications/prompts/list_changed).';

/** Capabilities per era: logging/setLevel is gone from 2026-07-28 (the level travels in `_meta`). */
export function capabilitiesOf(modern: boolean): ServerCapabilities {
  return modern
    ? { prompts: { listChanged: true }, completions: {} }
    : { prompts: { listChanged: true }, completions: {}, logging: {} };
}

const infos = new Map<ProtocolVersion, Implementation>();

/** The Implementation object a revision may see (titles from 2025-06-18, description/website from 2025-11-25). */
export function serverInfo(version: ProtocolVersion): Implementation {
  let info = infos.get(version);
  if (!info) {
    const f = featuresOf(version);
    info = { name: 'promptgate', version: pkg.version };
    if (f.titles) info.title = 'promptgate';
    if (f.icons) {
      info.description = 'Shared MCP prompt templates for your organisation';
      info.websiteUrl = 'https://github.com/promptgate/promptgate';
    }
    infos.set(version, info);
  }
  return info;
}
