/**
 * The two lists skills add (served by catalog/listing.ts like prompts/list, paged and cached per view):
 * skills/list entries (SEP-2640: uri, frontmatter, resources with digests and sizes) and resources/list,
 * where each visible skill's SKILL.md is a Resource named after its frontmatter.
 */
import type { Resource } from '@modelcontextprotocol/sdk/types.js';
import { ORIGIN_META } from '../shape.js';
import type { ListKind, View } from '../view.js';
import type { SkillEntry } from './index.js';
import type { Features } from '../../lib/versions.js';

/** A skills/list entry (and skills/get's `skill`), as `@modelcontextprotocol/core/ext/skills` types it. */
export interface SkillDescription {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: readonly { uri: string; digest: string; size: number }[] | 'dynamic';
  _meta?: Record<string, unknown>;
}

/** Where an upstream skill comes from, under the gateway's reverse-domain `_meta` key (SEP-2640 asks for one). */
function originMeta(s: SkillEntry): Record<string, unknown> | undefined {
  if (!('remote' in s)) return undefined;
  const { skill, stale } = s.remote;
  const origin = { upstream: skill.origin.upstream, uri: skill.origin.uri };
  return { [ORIGIN_META]: stale ? { ...origin, stale: true } : origin };
}

const described = new WeakMap<SkillEntry, SkillDescription>();

/** The entry as skills/list and skills/get serve it (the same in every revision); made once per skill. */
export function describeSkill(s: SkillEntry): SkillDescription {
  let d = described.get(s);
  if (!d) {
    d = { uri: s.uri, frontmatter: s.frontmatter, resources: s.resources };
    const meta = originMeta(s);
    if (meta) d._meta = meta;
    described.set(s, d);
  }
  return d;
}

/**
 * The skill's SKILL.md as a Resource: named and described by its frontmatter, with the media type
 * resources/read serves it with; `_meta` only where the revision has it (2025-06-18+).
 */
export function describeSkillResource(s: SkillEntry, f: Features): Resource {
  const { name, description } = s.frontmatter;
  const r: Resource = {
    uri: s.uri,
    name: typeof name === 'string' ? name : s.uri,
    mimeType: s.mimeType,
  };
  if (typeof description === 'string') r.description = description;
  if (s.size !== undefined) r.size = s.size;
  const meta = f.titles ? originMeta(s) : undefined;
  if (meta) r._meta = meta;
  return r;
}

/** The skills a view is served (each folder's owner among those it sees), sorted by SKILL.md URI. */
const visible = (view: View): readonly SkillEntry[] => view.skills.sorted;

export const SKILLS: ListKind<SkillEntry> = {
  id: 'skills',
  field: 'skills',
  items: visible,
  keyOf: (s) => s.uri,
  describe: describeSkill,
};

export const RESOURCES: ListKind<SkillEntry> = {
  id: 'resources',
  field: 'resources',
  items: (view) => view.itemsOf(SKILLS),
  keyOf: (s) => s.uri,
  describe: describeSkillResource,
};
