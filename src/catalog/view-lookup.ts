/**
 * What one view of a catalog generation (view.ts) serves by name: which prompts and skills its
 * principals may see, where a prompt name is routed, and the prompt itself described, rendered
 * and completed. A prompt outside the view is answered exactly as an unknown one, and its name is
 * never routed upstream. View extends this with its paginated lists.
 */
import type { GetPromptResult, PromptMessage } from '@modelcontextprotocol/sdk/types.js';
import { featuresOf, type ProtocolVersion } from '../lib/versions.js';
import { readArguments, UNLIMITED, type ArgumentLimits } from './arguments.js';
import { completeValues, type Completion } from './complete.js';
import {
  checkRenderedSize,
  firstSeen,
  renderMessage,
  type Compiled,
  type CompiledPrompt,
  type Entry,
} from './compiled.js';
import { LookupError } from './errors.js';
import { describePrompt, describeRemote, shapeContent } from './shape.js';
import type { SkillEntry } from './skills/index.js';
import { findSkillFile, ownersFor, type SkillFileRef, type SkillOwners } from './skills/owners.js';
import type { PromptOrigin } from './types.js';
import { sees } from './views.js';
import { clip } from '../lib/clip.js';

/** Where prompts/get and completion/complete for a name go. */
export type Route = { kind: 'local' } | { kind: 'remote'; origin: PromptOrigin };

const LOCAL: Route = { kind: 'local' };

export class ViewLookup {
  readonly generation: number;
  readonly provisional: boolean;
  readonly size: number;
  private readonly sorted: readonly Entry[];
  private skillMemo: SkillOwners | undefined;

  /**
   * @param key the view key (views.ts); '' for everyone's view of a catalog without groups.
   * @param allowed the groups the view sees (null: every prompt).
   */
  constructor(
    readonly compiled: Compiled,
    readonly key: string,
    private readonly allowed: ReadonlySet<string> | null,
  ) {
    this.generation = compiled.generation;
    this.provisional = compiled.provisional;
    this.sorted = allowed === null ? compiled.winners : firstSeen(compiled.sorted, (e) => sees(allowed, e.groups));
    this.size = this.sorted.length;
  }

  /**
   * Where a name is served. Names of upstream prompts route by the listing;
   * an unlisted name with a known prefix still routes to that upstream with
   * the rest of the name, so routing never depends on an earlier list. A name
   * this view may not see is routed exactly as a name nobody has: by its
   * prefix when the view sees that upstream, else to the local "unknown
   * prompt" (so a hidden name cannot be told from an unknown one).
   */
  route(name: unknown, separator: string): Route {
    if (typeof name !== 'string') return LOCAL;
    const e = this.served(name);
    if (e) return 'local' in e ? LOCAL : { kind: 'remote', origin: e.remote.prompt.origin };
    const i = name.indexOf(separator);
    const upstream = i > 0 ? this.compiled.prefixes.get(name.slice(0, i)) : undefined;
    if (upstream && sees(this.allowed, upstream.groups))
      return { kind: 'remote', origin: { upstream: upstream.id, name: name.slice(i + separator.length) } };
    return LOCAL;
  }

  /**
   * The entry this view serves under a name: the name's first owner it sees (compiled.ts). One it
   * may not see hides nothing behind it, so a hidden prompt cannot be told from an absent one.
   */
  served(name: string): Entry | undefined {
    const owners = this.compiled.owners.get(name);
    if (owners) for (const e of owners) if (sees(this.allowed, e.groups)) return e;
    return undefined;
  }

  /**
   * The name a call of this view to `name` is counted under (usage/count.ts) and its use read by
   * (the web cards): the name itself for a local prompt, `<name>@<upstream>` for an upstream's
   * (compiled.ts usageKeys), so a name that passes between a local prompt and an upstream's, in
   * either direction, carries neither one's use to the other's viewers. Undefined for a name this
   * view is not served: no row of its own (usage/count.ts).
   */
  usageKey(name: string): string | undefined {
    const e = this.served(name);
    return e === undefined ? undefined : (this.compiled.usageKeys.get(e) ?? name);
  }

  /** The prompt entries this view sees, sorted by name. */
  get entries(): readonly Entry[] {
    return this.sorted;
  }

  /** Whether this view may see something guarded by these groups (undefined: everyone). */
  sees(groups: readonly string[] | undefined): boolean {
    return sees(this.allowed, groups);
  }

  /** The skills this view is served: each folder's owner among the skills it sees (skills/owners.ts). */
  get skills(): SkillOwners {
    return (this.skillMemo ??= ownersFor(this.compiled.skills, (g) => sees(this.allowed, g)));
  }

  /** The skill whose SKILL.md is at `uri`, when this view is served it (else exactly as unknown: undefined). */
  skill(uri: unknown): SkillEntry | undefined {
    return typeof uri === 'string' ? this.skills.byUri.get(uri) : undefined;
  }

  /** What a skill file URI names in this view (undefined, as for an unknown URI, when it is not served it). */
  skillFile(uri: unknown): SkillFileRef | undefined {
    return typeof uri === 'string' ? findSkillFile(this.skills, uri) : undefined;
  }

  /** Whether this view serves a prompt by that name (local or listed upstream). */
  has(name: string): boolean {
    return this.served(name) !== undefined;
  }

  /** One prompt's listing entry (what prompts/list shows for it), or undefined. */
  describe(name: string, version: ProtocolVersion): Record<string, unknown> | undefined {
    const e = this.served(name);
    if (!e) return undefined;
    const f = featuresOf(version);
    return 'local' in e
      ? { ...describePrompt(e.local.record, f), name }
      : describeRemote(e.remote.prompt, e.remote.stale, f);
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

  names(): string[] {
    return this.sorted.map((e) => e.name);
  }

  private lookup(name: unknown): CompiledPrompt {
    if (typeof name !== 'string') throw new LookupError('invalid_argument', 'Prompt name must be a string');
    const e = this.served(name);
    // A name served upstream never reaches here (route() sends it there); asked anyway, it is not a local prompt.
    if (!e || !('local' in e)) throw new LookupError('unknown_prompt', `Unknown prompt "${clip(name, 100)}"`, { name });
    return e.local;
  }
}
