/**
 * Shapes records for the negotiated revision: a client only sees fields its
 * revision defines (no `title` before 2025-06-18, no `icons` before
 * 2025-11-25, `resource_link` degraded to a text link for 2025-03-26).
 * Pure functions; results are cached per generation by the catalog.
 */
import type { ContentBlock, Prompt } from '@modelcontextprotocol/sdk/types.js';
import type { Features } from '../lib/versions.js';
import type { PromptRecord, SpecPromptArgument } from './types.js';

export function describePrompt(r: PromptRecord, f: Features): Prompt {
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
      return { type: 'text', text: block.description ? `${label}: ${block.uri}\n${block.description}` : `${label}: ${block.uri}` };
    }
    if (!f.icons && block.icons) {
      const { icons: _icons, ...rest } = block;
      return rest;
    }
  }
  return block;
}
