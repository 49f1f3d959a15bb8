/**
 * The skills of one catalog generation, indexed for serving (SEP-2640, docs/skills-serving.md): local
 * skills at `skill://[<LOCAL_PREFIX>/]<name>/<path>`, then upstream skills at their client URIs, sorted by
 * their SKILL.md URI and found by it or by any file URI. A skill owns its folder: one whose folder is,
 * holds or lies within a folder already taken is not served (local skills first), so a URI never has two
 * owners, as prompt names never do.
 */
import type { SkillFileRecord, SkillRecord, SkillResourceRecord, UpstreamSkill, UpstreamState } from '../types.js';
import { mimeTypeOf } from './mime.js';

const MANIFEST = 'SKILL.md';

/** A local skill's file as served: its URI and the type its bytes are read as. */
export interface LocalSkillFile {
  readonly uri: string;
  readonly record: SkillFileRecord;
  readonly mimeType: string;
}

interface SkillBase {
  /** The SKILL.md URI clients see. */
  readonly uri: string;
  /** Who sees it (undefined: everyone). */
  readonly groups: readonly string[] | undefined;
  readonly frontmatter: Record<string, unknown>;
  readonly resources: readonly SkillResourceRecord[] | 'dynamic';
  /** The SKILL.md size, when known (resources/list). */
  readonly size: number | undefined;
}

export interface LocalSkill extends SkillBase {
  readonly local: { readonly record: SkillRecord; readonly files: readonly LocalSkillFile[] };
}

export interface RemoteSkill extends SkillBase {
  /** `stale`: its upstream (or its skills listing) failed since this listing; `dir`/`originDir`: the skill's folder here and upstream. */
  readonly remote: {
    readonly skill: UpstreamSkill;
    readonly stale: boolean;
    readonly dir: string;
    readonly originDir: string;
  };
}

export type SkillEntry = LocalSkill | RemoteSkill;

/** What a file URI names: a local file, or a file its upstream serves under its own URI. */
export type SkillFileRef =
  | { readonly skill: LocalSkill; readonly local: LocalSkillFile }
  | { readonly skill: RemoteSkill; readonly origin: { readonly upstream: string; readonly uri: string } };

export interface SkillIndex {
  readonly sorted: readonly SkillEntry[];
  readonly byUri: ReadonlyMap<string, SkillEntry>;
  readonly files: ReadonlyMap<string, SkillFileRef>;
  /** Folders of upstream `dynamic` skills: they list no files, so any URI inside routes to their upstream. */
  readonly remoteDirs: ReadonlyMap<string, RemoteSkill>;
  /** Every group a skill or a skill's upstream names. */
  readonly groups: ReadonlySet<string>;
}

/** Each segment percent-encoded, so any stored path makes one valid URI (plain names are unchanged). */
const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

/** The folder of a SKILL.md URI, or undefined when the URI names no SKILL.md. */
function dirOf(uri: string): string | undefined {
  return uri.endsWith(`/${MANIFEST}`) ? uri.slice(0, -MANIFEST.length - 1) : undefined;
}

function localSkill(record: SkillRecord, root: string, groups: readonly string[] | undefined): LocalSkill {
  const dir = `${root}${record.name}`;
  const files = record.files.map((f) => ({
    uri: `${dir}/${encodePath(f.path)}`,
    record: f,
    mimeType: f.mimeType ?? mimeTypeOf(f.path),
  }));
  return {
    uri: `${dir}/${MANIFEST}`,
    groups,
    frontmatter: record.frontmatter,
    resources: files.map((f) => ({ uri: f.uri, digest: f.record.digest, size: f.record.size })),
    size: record.files.find((f) => f.path === MANIFEST)?.size,
    local: { record, files },
  };
}

function remoteSkill(skill: UpstreamSkill, u: UpstreamState, groups: readonly string[] | undefined) {
  const dir = dirOf(skill.uri);
  const originDir = dirOf(skill.origin.uri);
  if (dir === undefined || originDir === undefined) return undefined;
  // A listed file outside the skill's folder could not be mapped to the upstream's URI: not served.
  if (skill.resources !== 'dynamic' && skill.resources.some((r) => r.uri !== skill.uri && !r.uri.startsWith(`${dir}/`)))
    return undefined;
  const entry: RemoteSkill = {
    uri: skill.uri,
    groups,
    frontmatter: skill.frontmatter,
    resources: skill.resources,
    size: skill.resources === 'dynamic' ? undefined : skill.resources.find((r) => r.uri === skill.uri)?.size,
    remote: { skill, stale: !u.ok || u.skillsError !== undefined, dir, originDir },
  };
  return entry;
}

const byUri = (a: SkillEntry, b: SkillEntry) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0);

export function indexSkills(
  skills: readonly SkillRecord[],
  upstreams: readonly UpstreamState[],
  localPrefix: string | undefined,
  groupsOf: (g: readonly string[] | undefined) => readonly string[] | undefined,
): SkillIndex {
  const entries = new Map<string, SkillEntry>();
  const files = new Map<string, SkillFileRef>();
  const remoteDirs = new Map<string, RemoteSkill>();
  const groups = new Set<string>();
  const root = `skill://${localPrefix ? `${localPrefix}/` : ''}`;
  /** Skill folders taken: a skill owns its whole folder, so none is served inside another. */
  const dirs = new Set<string>();
  const nested = (dir: string) => {
    for (let i = dir.lastIndexOf('/'); i > 'skill://'.length; i = dir.lastIndexOf('/', i - 1))
      if (dirs.has(dir.slice(0, i))) return true;
    for (const d of dirs) if (d === dir || d.startsWith(`${dir}/`)) return true;
    return false;
  };
  for (const record of skills) {
    const s = localSkill(record, root, groupsOf(record.groups));
    const dir = dirOf(s.uri)!;
    if (nested(dir)) continue;
    dirs.add(dir);
    entries.set(s.uri, s);
    for (const f of s.local.files) files.set(f.uri, { skill: s, local: f });
  }
  for (const u of upstreams) {
    const upstreamGroups = groupsOf(u.groups);
    for (const skill of u.skills ?? []) {
      const s = remoteSkill(skill, u, upstreamGroups);
      // Files are inside their folder (remoteSkill), so a folder no one owns holds no URI anyone claimed.
      if (!s || nested(s.remote.dir)) continue;
      const listed = s.resources === 'dynamic' ? [] : s.resources.map((r) => r.uri);
      dirs.add(s.remote.dir);
      entries.set(s.uri, s);
      if (s.resources === 'dynamic') remoteDirs.set(s.remote.dir, s);
      for (const uri of new Set([s.uri, ...listed]))
        files.set(uri, {
          skill: s,
          origin: { upstream: skill.origin.upstream, uri: s.remote.originDir + uri.slice(s.remote.dir.length) },
        });
    }
  }
  for (const s of entries.values()) for (const g of s.groups ?? []) groups.add(g);
  return { sorted: [...entries.values()].sort(byUri), byUri: entries, files, remoteDirs, groups };
}

/**
 * What a file URI names, when `sees` allows its skill. A listed skill serves what it lists (its manifest is
 * complete); a URI inside a `dynamic` upstream skill's folder routes to that upstream, which has the last word.
 */
export function findSkillFile(
  index: SkillIndex,
  uri: string,
  sees: (groups: readonly string[] | undefined) => boolean,
): SkillFileRef | undefined {
  const known = index.files.get(uri);
  if (known) return sees(known.skill.groups) ? known : undefined;
  if (index.remoteDirs.size === 0 || !uri.startsWith('skill://') || /\/\.\.?(\/|$)/.test(uri)) return undefined;
  for (let i = uri.lastIndexOf('/'); i > 'skill://'.length; i = uri.lastIndexOf('/', i - 1)) {
    const s = index.remoteDirs.get(uri.slice(0, i));
    if (s)
      return sees(s.groups)
        ? { skill: s, origin: { upstream: s.remote.skill.origin.upstream, uri: s.remote.originDir + uri.slice(i) } }
        : undefined;
  }
  return undefined;
}
