/**
 * Which skill owns each folder for one view (docs/skills-serving.md "URIs"), and what a file URI names
 * there. A skill owns its whole folder: the skills a view sees claim folders in precedence order (local
 * first, then upstreams as configured), and one whose folder is, holds or lies within a folder already
 * claimed is not served to that view. A skill the view may not see claims nothing, so it hides nothing
 * from the caller, as for prompt names (compiled.ts). Lists and reads use the same owners, so a URI is
 * listed exactly when it can be fetched.
 */
import { skillUriSegments } from './entry-rules.js';
import type { LocalSkill, LocalSkillFile, RemoteSkill, SkillEntry, SkillIndex } from './index.js';

/** What a file URI names: a local file, or a file its upstream serves under its own URI. */
export type SkillFileRef =
  | { readonly skill: LocalSkill; readonly local: LocalSkillFile }
  | { readonly skill: RemoteSkill; readonly origin: { readonly upstream: string; readonly uri: string } };

/** The skills one view is served. */
export interface SkillOwners {
  /** Sorted by SKILL.md URI: the view's skills/list. */
  readonly sorted: readonly SkillEntry[];
  readonly byUri: ReadonlyMap<string, SkillEntry>;
  readonly files: ReadonlyMap<string, SkillFileRef>;
  /** Folders of upstream `dynamic` skills: they list no files, so any URI inside routes to their upstream. */
  readonly remoteDirs: ReadonlyMap<string, RemoteSkill>;
}

type Sees = (groups: readonly string[] | undefined) => boolean;

const SCHEME = 'skill://';

/** Longer URIs are routed nowhere: a lookup walks every parent folder, and no skill path is this long. */
const MAX_URI = 2_048;

/** The folders that strictly contain `dir`, nearest first. */
function* parents(dir: string): Generator<string> {
  for (let i = dir.lastIndexOf('/'); i > SCHEME.length; i = dir.lastIndexOf('/', i - 1)) yield dir.slice(0, i);
}

/** A URI inside an upstream skill's folder, routed to its upstream under the upstream's own URI. */
const upstreamFile = (s: RemoteSkill, uri: string): Extract<SkillFileRef, { origin: unknown }> => ({
  skill: s,
  origin: { upstream: s.remote.skill.origin.upstream, uri: s.remote.originDir + uri.slice(s.dir.length) },
});

function claim(candidates: readonly SkillEntry[]): SkillOwners {
  const byUri = new Map<string, SkillEntry>();
  const files = new Map<string, SkillFileRef>();
  const remoteDirs = new Map<string, RemoteSkill>();
  /** Claimed folders, and every folder that holds one: a lookup each way instead of a scan. */
  const claimed = new Set<string>();
  const holding = new Set<string>();
  const taken = (dir: string) => {
    if (claimed.has(dir) || holding.has(dir)) return true;
    for (const p of parents(dir)) if (claimed.has(p)) return true;
    return false;
  };
  for (const s of candidates) {
    if (taken(s.dir)) continue;
    claimed.add(s.dir);
    for (const p of parents(s.dir)) holding.add(p);
    byUri.set(s.uri, s);
    if ('local' in s) {
      for (const f of s.local.files) files.set(f.uri, { skill: s, local: f });
      continue;
    }
    if (s.resources === 'dynamic') remoteDirs.set(s.dir, s);
    const listed = s.resources === 'dynamic' ? [] : s.resources.map((r) => r.uri);
    // Files lie inside their folder (index.ts remoteSkill), so each maps onto the upstream's folder.
    for (const uri of new Set([s.uri, ...listed])) files.set(uri, upstreamFile(s, uri));
  }
  const sorted = [...byUri.values()].sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  return { sorted, byUri, files, remoteDirs };
}

/** Whoever sees every skill: resolved once per generation and shared by every such view. */
const everyone = new WeakMap<SkillIndex, SkillOwners>();

/** The owners of the view that `sees` describes (views.ts sees); a view that sees every skill shares one result. */
export function ownersFor(index: SkillIndex, sees: Sees): SkillOwners {
  const visible = index.candidates.filter((s) => sees(s.groups));
  if (visible.length < index.candidates.length) return claim(visible);
  let all = everyone.get(index);
  if (!all) everyone.set(index, (all = claim(index.candidates)));
  return all;
}

/**
 * What a file URI names among a view's owners. A listed skill serves what it lists (its manifest is
 * complete); a URI inside a `dynamic` upstream skill's folder routes to that upstream, which has the last
 * word, under a URI its listing could have held (entry-rules.ts): none that a dot segment in any spelling,
 * an encoded separator, an empty segment, whitespace or a control character could take out of the folder.
 */
export function findSkillFile(owners: SkillOwners, uri: string): SkillFileRef | undefined {
  const known = owners.files.get(uri);
  if (known) return known;
  if (owners.remoteDirs.size === 0 || !uri.startsWith(SCHEME) || uri.length > MAX_URI) return undefined;
  for (const dir of parents(uri)) {
    const s = owners.remoteDirs.get(dir);
    if (!s) continue;
    const ref = upstreamFile(s, uri);
    return skillUriSegments(ref.origin.uri) ? ref : undefined;
  }
  return undefined;
}
