/**
 * The stored shape of prompts: MCP `Prompt` metadata plus message templates.
 *
 * Records reuse the SDK's spec types for everything the wire carries; the
 * only additions are argument completion `values`, `tags` and the template
 * messages. A snapshot is the whole published catalog at one generation.
 */
import type { ContentBlock, Icon, PromptArgument } from '@modelcontextprotocol/sdk/types.js';

/** The SDK's zod-derived PromptArgument lacks the spec's BaseMetadata `title` (2025-06-18+). */
export type SpecPromptArgument = PromptArgument & { title?: string };

export interface ArgumentRecord extends Pick<SpecPromptArgument, 'name' | 'title' | 'description' | 'required'> {
  /** Values offered by completion/complete, in preference order. */
  values?: string[];
}

export interface MessageRecord {
  role: 'user' | 'assistant';
  /** Exactly one block; string fields may hold `{{argument}}` placeholders. */
  content: ContentBlock;
}

export interface PromptRecord {
  name: string;
  title?: string;
  description?: string;
  arguments?: ArgumentRecord[];
  icons?: Icon[];
  tags?: string[];
  messages: MessageRecord[];
}

export interface CatalogSnapshot {
  /** Monotonic; every published change gets a new one. */
  generation: number;
  updatedAt: string;
  prompts: PromptRecord[];
}

/** A problem found while validating, addressed by field path ("arguments[1].name"). */
export interface Issue {
  path: string;
  message: string;
}
