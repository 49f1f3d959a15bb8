/**
 * One catalog generation, compiled for serving.
 *
 * Built once per generation per isolate: prompts sorted by name (a stable
 * order across pages and isolates), templates compiled, and list pages
 * serialized lazily per protocol revision and kept as JSON strings, so a
 * warm `prompts/list` is a map lookup plus an id splice.
 */
import type { GetPromptResult, PromptMessage } from '@modelcontextprotocol/sdk/types.js';
import { featuresOf, type ProtocolVersion } from '../lib/versions.js';
import { completeValues, type Completion } from './complete.js';
import { narrowHints, ownHints, type CacheHints } from './hints.js';
import { mintCursor, readCursor } from './cursor.js';
import { LookupError } from './errors.js';
import { describePrompt, describeRemote, shapeContent } from './shape.js';
import { readArguments, UNLIMITED, type ArgumentLimits, type Arguments } from './arguments.js';
import { compileTemplate, render, renderedLength, templatedFields, type Template } from './template.js';
import type { CatalogSnapshot, MessageRecord, PromptOrigin, PromptRecord, UpstreamPrompt } from './types.js';

interface CompiledMessage {
  readonly record: MessageRecord;
  /** Paths of templated string fields, with their compiled templates. */
  readonly slots: readonly { readonly path: readonly string[]; readonly template: Template }[];
}

interface CompiledPrompt {
  readonly record: PromptRecord;
  readonly required: readonly string[];
  readonly messages: readonly CompiledMessage[];
}

interface RemotePrompt {
  readonly prompt: UpstreamPrompt;
  /** The upstream failed since this listing was taken: served, but marked. */
  readonly stale: boolean;
}

type Entry = { readonly name: string } & ({ readonly local: CompiledPrompt } | { readonly remote: RemotePrompt });

/** Where prompts/get and completion/complete for a name go. */
export type Route = { kind: 'local' } | { kind: 'remote'; origin: PromptOrigin };

function compileMessage(record: MessageRecord): CompiledMessage {
  const content = record.content as unknown as Record<string, unknown>;
  const slots = templatedFields(content).map(({ obj, key }) => ({
    path: obj === content ? [key] : ['resource', key],
    template: compileTemplate(obj[key] as string),
  }));
  return { record, slots: slots.filter((s) => s.template.length > 1) };
}

function renderMessage(m: CompiledMessage, args: Arguments): MessageRecord['content'] {
  if (m.slots.length === 0) return m.record.content;
  const out = { ...(m.record.content as unknown as Record<string, unknown>) };
  for (const { path, template } of m.slots) {
    if (path.length === 1) out[path[0]!] = render(template, args);
    else {
      const inner = { ...(out[path[0]!] as Record<string, unknown>) };
      inner[path[1]!] = render(template, args);
      out[path[0]!] = inner;
    }
  }
  return out as unknown as MessageRecord['content'];
}

/**
 * What substitution would produce, counted before anything is built: a
 * large value used many times must not make a large response (one 900 KB
 * value used 20 times once rendered 18 MB).
 */
function checkRenderedSize(p: CompiledPrompt, args: Arguments, max: number): void {
  if (max === Infinity) return;
  let total = 0;
  for (const m of p.messages) for (const { template } of m.slots) total += renderedLength(template, args);
  if (total > max)
    throw new LookupError(
      'invalid_argument',
      `The rendered prompt would be ${total} bytes; the limit is ${max} bytes. Shorten the arguments`,
      { limit: max },
    );
}

export class Catalog {
  readonly generation: number;
  readonly size: number;
  private readonly sorted: readonly Entry[];
  private readonly byName = new Map<string, CompiledPrompt>();
  private readonly remote = new Map<string, RemotePrompt>();
  private readonly prefixes = new Map<string, string>();
  private readonly pages = new Map<string, Promise<string>>();
  private upstreamIdSet: ReadonlySet<string> | undefined;

  private hintMemo: { ttlMs: number; hints: CacheHints } | undefined;

  /**
   * @param provisional a merge made in this isolate ahead of the writer (cold
   * upstream path): it shares its base's generation, so its pages must never
   * be stored anywhere keyed by generation.
   */
  constructor(
    readonly snapshot: CatalogSnapshot,
    readonly provisional = false,
  ) {
    this.generation = snapshot.generation;
    const published = (name: string) =>
      snapshot.localPrefix ? `${snapshot.localPrefix}${snapshot.separator ?? '.'}${name}` : name;
    const entries: Entry[] = snapshot.prompts.map((record) => ({
      name: published(record.name),
      local: {
        record,
        required: (record.arguments ?? []).filter((a) => a.required).map((a) => a.name),
        messages: record.messages.map(compileMessage),
      },
    }));
    for (const e of entries) if ('local' in e) this.byName.set(e.name, e.local);
    for (const u of snapshot.upstreams ?? []) {
      if (u.prefix) this.prefixes.set(u.prefix, u.id);
      for (const prompt of u.prompts) {
        // A name that is already taken keeps its first owner (local prompts first); the writer logs it.
        if (this.byName.has(prompt.name) || this.remote.has(prompt.name)) continue;
        const r = { prompt, stale: !u.ok };
        this.remote.set(prompt.name, r);
        entries.push({ name: prompt.name, remote: r });
      }
    }
    this.sorted = entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.size = this.sorted.length;
  }

  /**
   * Where a name is served. Names of upstream prompts route by the listing;
   * an unlisted name with a known prefix still routes to that upstream with
   * the rest of the name, so routing never depends on an earlier list.
   */
  route(name: unknown, separator: string): Route {
    if (typeof name === 'string') {
      if (this.byName.has(name)) return { kind: 'local' };
      const r = this.remote.get(name);
      if (r) return { kind: 'remote', origin: r.prompt.origin };
      const i = name.indexOf(separator);
      const upstream = i > 0 ? this.prefixes.get(name.slice(0, i)) : undefined;
      if (upstream) return { kind: 'remote', origin: { upstream, name: name.slice(i + separator.length) } };
    }
    return { kind: 'local' };
  }

  /**
   * The `prompts/list` result for one page, as a JSON string. Cached per
   * (revision, offset, page size) for the life of this generation.
   */
  async listPage(version: ProtocolVersion, cursor: unknown, pageSize: number, secret: string): Promise<string> {
    const offset = cursor === undefined ? 0 : await readCursor(secret, cursor, this.generation);
    if (offset > this.size) throw new LookupError('invalid_cursor', 'Invalid cursor');
    const key = `${version}|${offset}|${pageSize}`;
    let page = this.pages.get(key);
    if (!page) {
      page = this.buildPage(version, offset, pageSize, secret);
      this.pages.set(key, page);
      page.catch(() => this.pages.delete(key));
    }
    return page;
  }

  private async buildPage(version: ProtocolVersion, offset: number, pageSize: number, secret: string): Promise<string> {
    const f = featuresOf(version);
    const prompts = this.sorted
      .slice(offset, offset + pageSize)
      .map((e) =>
        'local' in e
          ? { ...describePrompt(e.local.record, f), name: e.name }
          : describeRemote(e.remote.prompt, e.remote.stale, f),
      );
    const next = offset + pageSize;
    const result: { prompts: unknown[]; nextCursor?: string } = { prompts };
    if (next < this.size) result.nextCursor = await mintCursor(secret, this.generation, next);
    return JSON.stringify(result);
  }

  /** The hints every list page of this generation carries: the configured TTL, narrowed by the upstreams'. */
  cacheHints(ttlMs: number): CacheHints {
    if (this.hintMemo?.ttlMs !== ttlMs) {
      this.hintMemo = {
        ttlMs,
        hints: narrowHints(
          ownHints(ttlMs),
          (this.snapshot.upstreams ?? []).map((u) => u.hints),
        ),
      };
    }
    return this.hintMemo.hints;
  }

  /** Whether this generation serves a prompt by that name (local or listed upstream). */
  has(name: string): boolean {
    return this.byName.has(name) || this.remote.has(name);
  }

  /** One prompt's listing entry (what prompts/list shows for it), or undefined. */
  describe(name: string, version: ProtocolVersion): Record<string, unknown> | undefined {
    const f = featuresOf(version);
    const local = this.byName.get(name);
    if (local) return { ...describePrompt(local.record, f), name };
    const remote = this.remote.get(name);
    return remote ? describeRemote(remote.prompt, remote.stale, f) : undefined;
  }

  get(name: unknown, args: unknown, version: ProtocolVersion, limits: ArgumentLimits = UNLIMITED): GetPromptResult {
    const p = this.lookup(name);
    const given = readArguments(args, limits);
    const missing = p.required.filter((r) => !Object.hasOwn(given, r));
    if (missing.length) {
      throw new LookupError(
        'missing_argument',
        `Missing required argument${missing.length > 1 ? 's' : ''} ${missing.map((m) => `"${m}"`).join(', ')} for prompt "${p.record.name}"`,
        { missing },
      );
    }
    checkRenderedSize(p, given, limits.maxRenderedBytes);
    // Undeclared arguments are ignored: placeholders can only name declared ones (checked at publish).
    const f = featuresOf(version);
    const messages: PromptMessage[] = p.messages.map((m) => ({
      role: m.record.role,
      content: shapeContent(renderMessage(m, given), f),
    }));
    const result: GetPromptResult = { messages };
    if (p.record.description !== undefined) result.description = p.record.description;
    return result;
  }

  complete(name: unknown, argument: string, value: string): Completion {
    const p = this.lookup(name);
    const arg = p.record.arguments?.find((a) => a.name === argument);
    return completeValues(arg?.values ?? [], value);
  }

  /** Upstreams this generation has a listing for (healthy or stale). */
  upstreamIds(): ReadonlySet<string> {
    // From the listings, not the prefixes: several upstreams may be mounted without one.
    return (this.upstreamIdSet ??= new Set((this.snapshot.upstreams ?? []).map((u) => u.id)));
  }

  names(): string[] {
    return this.sorted.map((e) => e.name);
  }

  private lookup(name: unknown): CompiledPrompt {
    if (typeof name !== 'string') throw new LookupError('invalid_argument', 'Prompt name must be a string');
    const p = this.byName.get(name);
    if (!p)
      throw new LookupError(
        'unknown_prompt',
        `Unknown prompt "${name.length > 100 ? `${name.slice(0, 100)}…` : name}"`,
        { name },
      );
    return p;
  }
}
