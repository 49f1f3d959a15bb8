/**
 * The skills of one catalog generation, before views (SEP-2640, docs/skills-serving.md): local skills at
 * `skill://[<LOCAL_PREFIX>/]<name>/<path>`, then upstream skills at their client URIs, in precedence order.
 * Which of them owns a folder depends on who asks: each view resolves that itself (owners.ts), so a skill
 * a caller may not see never claims a folder from one it may.
 */
import type { SkillFileRecord, SkillRecord, SkillResourceRecord, UpstreamSkill, UpstreamState } from '../types.js';
import { log } from '../../lib/log.js';
import { frontmatterProblems } from './entry-rules.js';
import { mimeTypeOf } from './mime.js';

const MANIFEST = 'SKILL.md';
/** What an upstream's SKILL.md is listed as: its type is the upstream's to say, on read. */
const MANIFEST_TYPE = 'text/markdown';

/** A local skill's file as served: its URI and the type its bytes are read as. */
export interface LocalSkillFile {
  readonly uri: string;
  readonly record: SkillFileRecord;
  readonly mimeType: string;
}

interface SkillBase {
  /** The SKILL.md URI clients see. */
  readonly uri: string;
  /** Its folder (the URI without `/SKILL.md`): every file it serves lies inside. */
  readonly dir: string;
  /** Who sees it (undefined: everyone). */
  readonly groups: readonly string[] | undefined;
  readonly frontmatter: Record<string, unknown>;
  readonly resources: readonly SkillResourceRecord[] | 'dynamic';
  /** The SKILL.md size, when known, and its media type as resources/read serves it (resources/list). */
  readonly size: number | undefined;
  readonly mimeType: string;
}

export interface LocalSkill extends SkillBase {
  readonly local: { readonly record: SkillRecord; readonly files: readonly LocalSkillFile[] };
}

export interface RemoteSkill extends SkillBase {
  /** `stale`: its upstream (or its skills listing) failed since this listing; `originDir`: the skill's folder upstream. */
  readonly remote: {
    readonly skill: UpstreamSkill;
    readonly stale: boolean;
    readonly originDir: string;
  };
}

export type SkillEntry = LocalSkill | RemoteSkill;

/** A generation's skills before views: every one, in precedence order, and the groups they name. */
export interface SkillIndex {
  /** Local skills in published order, then each upstream's in configured order: who claims a folder first. */
  readonly candidates: readonly SkillEntry[];
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
  const manifest = files.find((f) => f.record.path === MANIFEST);
  return {
    uri: `${dir}/${MANIFEST}`,
    dir,
    groups,
    frontmatter: record.frontmatter,
    resources: files.map((f) => ({ uri: f.uri, digest: f.record.digest, size: f.record.size })),
    size: manifest?.record.size,
    mimeType: manifest?.mimeType ?? MANIFEST_TYPE,
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
    dir,
    groups,
    frontmatter: skill.frontmatter,
    resources: skill.resources,
    size: skill.resources === 'dynamic' ? undefined : skill.resources.find((r) => r.uri === skill.uri)?.size,
    mimeType: MANIFEST_TYPE,
    remote: { skill, stale: !u.ok || u.skillsError !== undefined, originDir },
  };
  return entry;
}

/**
 * A record stored before publish held front matter to what clients accept is left out: one entry a
 * client refuses makes its whole skills/list throw. Listed and read alike, so nothing left out of a
 * listing can still be read; republishing it fixed makes it servable.
 */
function servable(record: SkillRecord): boolean {
  const problem = frontmatterProblems(record.frontmatter, record.name)[0];
  if (problem) log.warn('skill not served', { skill: record.name, reason: `${problem[0]}: ${problem[1]}` });
  return problem === undefined;
}

export function indexSkills(
  skills: readonly SkillRecord[],
  upstreams: readonly UpstreamState[],
  localPrefix: string | undefined,
  groupsOf: (g: readonly string[] | undefined) => readonly string[] | undefined,
): SkillIndex {
  const root = `skill://${localPrefix ? `${localPrefix}/` : ''}`;
  const candidates: SkillEntry[] = skills.filter(servable).map((r) => localSkill(r, root, groupsOf(r.groups)));
  for (const u of upstreams) {
    const upstreamGroups = groupsOf(u.groups);
    for (const skill of u.skills ?? []) {
      const s = remoteSkill(skill, u, upstreamGroups);
      if (s) candidates.push(s);
    }
  }
  const groups = new Set<string>();
  for (const s of candidates) for (const g of s.groups ?? []) groups.add(g);
  return { candidates, groups };
}
