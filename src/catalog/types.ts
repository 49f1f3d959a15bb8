/**
 * The stored shape of prompts: MCP `Prompt` metadata plus message templates.
 *
 * Records reuse the SDK's spec types for everything the wire carries; the
 * only additions are argument completion `values`, `tags` and the template
 * messages. A snapshot is the whole published catalog at one generation.
 */
import type { ContentBlock, Icon, PromptArgument } from '@modelcontextprotocol/sdk/types.js';
import type { CacheHints } from './hints.js';

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
  /** Who sees it (docs/access-control.md): absent, every principal; else members of any of these, and admins. */
  groups?: string[];
  messages: MessageRecord[];
}

/** Where an aggregated prompt really lives: its upstream and its name there. */
export interface PromptOrigin {
  upstream: string;
  name: string;
}

/** An upstream's prompt as published here: namespaced, sanitized, metadata only. */
export interface UpstreamPrompt extends Omit<PromptRecord, 'messages' | 'tags'> {
  origin: PromptOrigin;
}

/** The last good listing of one upstream, and how fresh it is. */
export interface UpstreamState {
  id: string;
  prefix: string;
  prompts: UpstreamPrompt[];
  /** The upstream's configured groups: they also guard names it has not listed (Catalog.route). */
  groups?: string[];
  /** Digest of the listing itself; a change of anything else (health) is not a list change. */
  digest: string;
  ok: boolean;
  /** The upstream's own `ttlMs`/`cacheScope` on its last listing (modern upstreams only). */
  hints?: CacheHints;
  lastSuccess: string | null;
  lastError: string | null;
}

export interface CatalogSnapshot {
  /** Monotonic; every published change gets a new one. */
  generation: number;
  updatedAt: string;
  prompts: PromptRecord[];
  /** Aggregated upstreams, with their last good listings. */
  upstreams?: UpstreamState[];
  /** When set (LOCAL_PREFIX), local prompts are published as `<localPrefix><separator><name>`. */
  localPrefix?: string;
  separator?: string;
}

/** A problem found while validating, addressed by field path ("arguments[1].name"). */
export interface Issue {
  path: string;
  message: string;
}

/** One stored version of a prompt, as the admin API's history shows it. */
export interface VersionInfo {
  version: number;
  generation: number;
  createdAt: string;
  deleted: boolean;
  /** Who wrote this version (a principal id, `admin` for ADMIN_TOKEN); null for versions older than the record. */
  by: string | null;
}
