/**
 * Names an upstream listing shares with a local prompt or with an earlier
 * upstream. Each view serves the first owner it sees (catalog/compiled.ts); the
 * writer logs the clash when it writes a snapshot and /status shows it, so
 * this lives apart from both. Local prompts are compared by the names they
 * are published under (LOCAL_PREFIX), as the catalog does.
 */
import { groupsOf, publishedName, upstreamPromptGroups } from './compiled.js';
import type { CatalogSnapshot } from './types.js';

/** A type, not an interface: a log line's fields must be plain JSON data (lib/log.ts). */
export type Collision = {
  name: string;
  upstream: string;
  /** `local`, or the id of the upstream listed first. */
  winner: string;
};

type Groups = readonly string[] | undefined;
type Snap = Pick<CatalogSnapshot, 'prompts' | 'upstreams' | 'localPrefix' | 'separator'>;

/** Each name's owners in precedence order (local first, then upstreams as configured), with who sees each. */
function ownersByName(snap: Snap): Map<string, { id: string; groups: Groups }[]> {
  const owners = new Map<string, { id: string; groups: Groups }[]>();
  const add = (name: string, owner: { id: string; groups: Groups }) => {
    const list = owners.get(name);
    if (list) list.push(owner);
    else owners.set(name, [owner]);
  };
  for (const p of snap.prompts) add(publishedName(snap, p.name), { id: 'local', groups: groupsOf(p.groups) });
  for (const u of snap.upstreams ?? [])
    for (const p of u.prompts) add(p.name, { id: u.id, groups: upstreamPromptGroups(u, p) });
  return owners;
}

/**
 * The clashes a caller may be shown, as it meets them: for each name, the owners it may see, the
 * first of them the one it is served and each other one a clash with it. None reveals a prompt the
 * caller may not see.
 */
export function collisionsSeen(snap: Snap, sees: (groups: Groups) => boolean): Collision[] {
  const out: Collision[] = [];
  for (const [name, owners] of ownersByName(snap)) {
    const seen = owners.filter((o) => sees(o.groups));
    for (const loser of seen.slice(1)) out.push({ name, upstream: loser.id, winner: seen[0]!.id });
  }
  return out;
}

/** Every clash, as whoever sees everything meets them (the writer's log, an admin's /status). */
export const collisions = (snap: Snap): Collision[] => collisionsSeen(snap, () => true);
