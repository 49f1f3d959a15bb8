/**
 * Who this server is and what it offers, for both eras: the legacy
 * `initialize` result and the modern `server/discover` result and result
 * `_meta` share these, so the two eras can never describe different servers.
 */
import type { Implementation, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { version as packageVersion } from '../../package.json';
import type { Config } from '../lib/config.js';
import { featuresOf, type ProtocolVersion } from '../lib/versions.js';

export const INSTRUCTIONS =
  'promptgate serves shared prompt templates. List them with prompts/list and fetch one with prompts/get; ' +
  'argument values can be completed with completion/complete. The list changes when prompts are published ' +
  '(notifications/prompts/list_changed).';

/** The Skills extension's identifier under `capabilities.extensions` (SEP-2640). */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

const capabilities = new WeakMap<Config, { modern: ServerCapabilities; legacy: ServerCapabilities }>();

/**
 * Capabilities per era and deployment: logging/setLevel is gone from 2026-07-28 (the level
 * travels in `_meta`); `tools` only with the mirror on; `resources` and the Skills extension only
 * with skills on (skill files are read through resources/read, so the extension needs both).
 * Built once per configuration.
 */
export function capabilitiesOf(modern: boolean, cfg: Config): ServerCapabilities {
  let c = capabilities.get(cfg);
  if (!c) {
    const base: ServerCapabilities = { prompts: { listChanged: true }, completions: {} };
    if (cfg.toolsMirror) base.tools = { listChanged: true };
    if (cfg.skills) {
      base.resources = { listChanged: true };
      base.extensions = { [SKILLS_EXTENSION]: {} };
    }
    c = { modern: base, legacy: { ...base, logging: {} } };
    capabilities.set(cfg, c);
  }
  return modern ? c.modern : c.legacy;
}

const infos = new Map<ProtocolVersion, Implementation>();

/** The Implementation object a revision may see (titles from 2025-06-18, description/website from 2025-11-25). */
export function serverInfo(version: ProtocolVersion): Implementation {
  let info = infos.get(version);
  if (!info) {
    const f = featuresOf(version);
    info = { name: 'promptgate', version: packageVersion };
    if (f.titles) info.title = 'promptgate';
    if (f.icons) {
      info.description = 'Shared MCP prompt templates for your organisation';
      info.websiteUrl = 'https://github.com/promptgate/promptgate';
    }
    infos.set(version, info);
  }
  return info;
}
