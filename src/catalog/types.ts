/**
 * The stored shape of prompts: MCP `Prompt` metadata plus message templates.
 *
 * Records reuse the SDK's spec types for everything the wire carries; the
 * only additions are argument completion `values`, `tags`, `groups`
 * (visibility), `tool` (the tools mirror's opt-out) and the template
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
  /** `false`: never mirrored as a tool (docs/tools-mirror.md), whatever TOOLS_MIRROR_TAGS says. */
  tool?: boolean;
  messages: MessageRecord[];
}

/**
 * One file of a published skill. Its bytes live in KV by digest (`skills/files/<hex>`,
 * catalog/skills/), so a file never changes under its digest and is cached forever.
 */
export interface SkillFileRecord {
  /** Path under the skill's folder, `/`-separated: `SKILL.md`, `references/GUIDE.md`. */
  path: string;
  /** `sha256:` and 64 lowercase hex digits, of the raw bytes. */
  digest: string;
  size: number;
  mimeType?: string;
}

/**
 * A local skill (SEP-2640, docs/skills.md): a folder with `SKILL.md` and the files it references.
 * Served at `skill://[<LOCAL_PREFIX>/]<name>/<path>`.
 */
export interface SkillRecord {
  /** `frontmatter.name`: the final segment of the skill's path. */
  name: string;
  /** The `SKILL.md` front matter as JSON, verbatim (name and description at least). */
  frontmatter: Record<string, unknown>;
  /** Every file, `SKILL.md` included, sorted by path. */
  files: SkillFileRecord[];
  /** Who sees it; as for prompts. */
  groups?: string[];
}

/** One file of an upstream skill, as clients see it: URI under the upstream's mount, digest and size as listed there. */
export interface SkillResourceRecord {
  uri: string;
  digest: string;
  size: number;
}

/** An upstream's skill as published here: its URIs rewritten under `skill://<mount>/`, metadata only. */
export interface UpstreamSkill {
  /** The `SKILL.md` URI clients see: `skill://<mount>/<the upstream's skill path>/SKILL.md`. */
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: SkillResourceRecord[] | 'dynamic';
  /** The upstream, and its own URI for the same `SKILL.md`. */
  origin: { upstream: string; uri: string };
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

/**
 * A prompt an upstream listed that is not published, and why (upstreams/access.ts `publisher`). A
 * type, not an interface: a log line's fields must be plain JSON data (lib/log.ts).
 */
export type SkippedPrompt = {
  /** The name it would have been published under. */
  name: string;
  /** The upstream's own name for it. */
  original: string;
  reason: string;
};

/** The last good listing of one upstream, and how fresh it is. */
export interface UpstreamState {
  id: string;
  prefix: string;
  prompts: UpstreamPrompt[];
  /** Its skills, when it declares the Skills extension (absent: it does not, or this listing predates skills). */
  skills?: UpstreamSkill[];
  /** The upstream's own `ttlMs`/`cacheScope` on its last good skills listing (modern upstreams only). */
  skillsHints?: CacheHints;
  /** Why its last skills listing failed (`fault: message`); `skills` is then the last good listing, stale. */
  skillsError?: string;
  /** The upstream's configured groups: they also guard names it has not listed (Catalog.route). */
  groups?: string[];
  /** Digest of the listing itself; a change of anything else (health) is not a list change. */
  digest: string;
  ok: boolean;
  /** The upstream's own `ttlMs`/`cacheScope` on its last listing (modern upstreams only). */
  hints?: CacheHints;
  lastSuccess: string | null;
  lastError: string | null;
  /**
   * Prompts of the last good listing that are not published under their name, and why (at most
   * MAX_SKIPPED_SHOWN, upstreams/access.ts). The writer's rows and /status only: the snapshot leaves it out.
   */
  skipped?: SkippedPrompt[];
}

export interface CatalogSnapshot {
  /** Monotonic; every published change gets a new one. */
  generation: number;
  /**
   * The newest generation announced to streams at or before this one: this one, or an older one when
   * it was made without a notification (an upstream going stale or recovering). Absent in snapshots
   * from before it was kept. Streams compare their position with it (session/watch.ts).
   */
  announced?: number;
  updatedAt: string;
  prompts: PromptRecord[];
  /** Local skills (absent in snapshots from before skills). */
  skills?: SkillRecord[];
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
