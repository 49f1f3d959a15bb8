/**
 * Shapes records for the negotiated revision: a client only sees fields its
 * revision defines (no `title` before 2025-06-18, no `icons` before
 * 2025-11-25, `resource_link` degraded to a text link for 2025-03-26).
 * Pure functions; results are cached per generation by the catalog.
 */
import type { ContentBlock, Prompt } from '@modelcontextprotocol/sdk/types.js';
import type { Features } from '../lib/versions.js';
import type { PromptRecord, SpecPromptArgument, UpstreamPrompt } from './types.js';

/** The `_meta` key that tells clients where an aggregated prompt comes from. */
export const ORIGIN_META = 'dev.promptgate/origin';

export function describePrompt(r: Omit<PromptRecord, 'messages'>, f: Features): Prompt {
  const p: Prompt = { name: r.name };
  if (f.titles && r.title !== undefined) p.title = r.title;
  if (r.description !== undefined) p.description = r.description;
  if (r.arguments?.length) {
    p.arguments = r.arguments.map((a) => {
      const out: SpecPromptArgument = { name: a.name };
      if (f.titles && a.title !== undefined) out.title = a.title;
      if (a.description !== undefined) out.description = a.description;
      if (a.required !== undefined) out.required = a.required;
      return out;
    });
  }
  if (f.icons && r.icons?.length) p.icons = r.icons;
  return p;
}

export function shapeContent(block: ContentBlock, f: Features): ContentBlock {
  if (block.type === 'resource_link') {
    if (!f.resourceLinks) {
      const label = block.title ?? block.name;
      return {
        type: 'text',
        text: block.description ? `${label}: ${block.uri}\n${block.description}` : `${label}: ${block.uri}`,
      };
    }
    if (!f.icons && block.icons) {
      const { icons: _icons, ...rest } = block;
      return rest;
    }
  }
  return block;
}

/** An upstream prompt: described like a local one, plus its origin (and staleness) in `_meta` (2025-06-18+). */
export function describeRemote(p: UpstreamPrompt, stale: boolean, f: Features): Prompt {
  const out = describePrompt(p, f);
  if (f.titles) out._meta = { [ORIGIN_META]: stale ? { ...p.origin, stale: true } : p.origin };
  return out;
}
