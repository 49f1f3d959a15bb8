/**
 * The plain data the catalog pages render (src/web/*.tsx): gathered by routes/web-cards.ts and
 * web-calls.ts, so the components never touch KV, Durable Objects or the network and can be
 * rendered from anything.
 */

/** One prompt as the index lists it. */
export interface PromptCard {
  name: string;
  title: string | undefined;
  description: string | undefined;
  tags: string[];
  /** `local`, or the upstream's id. */
  source: string;
  /**
   * prompts/get counts per UTC day, oldest first (7 days). undefined when not shown: the usage
   * store did not answer, or the name is also a prompt the viewer may not see, whose use the counts
   * (kept by name) would include.
   */
  use: number[] | undefined;
}

/** One upstream's line in the health table (catalog/upstreams/health.ts). */
export interface HealthRow {
  id: string;
  state: string;
  prompts: number;
  lastSuccess: string | null;
  fault: string | null;
  /** The upstream's configured groups: a viewer outside them is not shown the row. */
  groups: readonly string[] | undefined;
}

/** What the page chrome needs: who may see what, and where the gateway is. */
export interface Chrome {
  /** The gateway's MCP endpoint (request origin + /mcp). */
  mcpUrl: string;
  generation: number;
  /** ISO time of the catalog generation (its age is shown from it). */
  updatedAt: string;
  /** No credential was accepted: the page asks for an API key. */
  needsKey: boolean;
}

export interface Filters {
  q: string;
  tag: string;
  source: string;
}

export interface IndexData extends Chrome {
  prompts: PromptCard[];
  filters: Filters;
}

export interface ArgumentRow {
  name: string;
  title: string | undefined;
  description: string | undefined;
  required: boolean;
  /** Allowed values, from completion/complete with an empty value. */
  values: string[];
}

export interface VersionRow {
  version: number;
  createdAt: string;
  by: string | null;
  deleted: boolean;
}

/** An admin's view of a prompt's versions: the newest few, and how many older ones the page leaves to the admin API. */
export interface HistoryData {
  /** Oldest first. */
  rows: VersionRow[];
  /** Versions older than the first row, not shown. */
  older: number;
  /** The record's own name, which the admin API and the CLI know it by (no LOCAL_PREFIX). */
  recordName: string;
}

/** A content block as prompts/get returns it (only the fields the preview shows are typed). */
export interface ContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  title?: string;
  description?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

export interface PreviewMessage {
  role: string;
  content: ContentBlock;
}

/** prompts/get's answer for the preview: its messages, or the error it gave. */
export type Preview = { messages: PreviewMessage[]; description?: string } | { error: string };

export interface PromptPageData extends Chrome {
  card: PromptCard;
  arguments: ArgumentRow[];
  /** The values the form was submitted with (no-JS render), else empty. */
  given: Record<string, string>;
  /** Rendered on the server when the form was submitted (`render=1`). */
  preview: Preview | undefined;
  /** Admins only; 'unknown' when the catalog writer did not answer in time. */
  history: HistoryData | 'unknown' | undefined;
  /** When the prompt last changed (its latest version), or its upstream last listed it. */
  changed: string | undefined;
}
