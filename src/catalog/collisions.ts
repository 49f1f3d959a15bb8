/**
 * Names an upstream listing shares with a local prompt or with an earlier
 * upstream. Each view serves the first owner it sees (catalog/compiled.ts); the
 * writer logs the clash when it writes a snapshot and /status shows it, so
 * this lives apart from both. Local prompts are compared by the names they
 * are published under (LOCAL_PREFIX), as the catalog does.
 */
import { groupsOf, publishedName } from './compiled.js';
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

/** Each clash with who may see either side (the winner's and the loser's groups, as the catalog rules them). */
function clashes(snap: Snap): { collision: Collision; winner: Groups; loser: Groups }[] {
  const owner = new Map<string, { id: string; groups: Groups }>(
    snap.prompts.map((p) => [publishedName(snap, p.name), { id: 'local', groups: groupsOf(p.groups) }]),
  );
  const out: { collision: Collision; winner: Groups; loser: Groups }[] = [];
  for (const u of snap.upstreams ?? [])
    for (const p of u.prompts) {
      const groups = groupsOf(u.groups) ?? groupsOf(p.groups);
      const first = owner.get(p.name);
      if (first)
        out.push({
          collision: { name: p.name, upstream: u.id, winner: first.id },
          winner: first.groups,
          loser: groups,
        });
      else owner.set(p.name, { id: u.id, groups });
    }
  return out;
}

export function collisions(snap: Snap): Collision[] {
  return clashes(snap).map((c) => c.collision);
}

/** The clashes a caller may be shown: only where it sees both sides, so none reveals a prompt it may not see. */
export function collisionsSeen(snap: Snap, sees: (groups: Groups) => boolean): Collision[] {
  return clashes(snap)
    .filter((c) => sees(c.winner) && sees(c.loser))
    .map((c) => c.collision);
}
