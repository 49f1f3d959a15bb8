/**
 * Names an upstream listing shares with a local prompt or with an earlier
 * upstream. The catalog serves the first owner (catalog/compiled.ts); the
 * writer logs the clash when it writes a snapshot and /status shows it, so
 * this lives apart from both.
 */
import type { CatalogSnapshot } from './types.js';

/** A type, not an interface: a log line's fields must be plain JSON data (lib/log.ts). */
export type Collision = {
  name: string;
  upstream: string;
  /** `local`, or the id of the upstream listed first. */
  winner: string;
};

export function collisions(snap: Pick<CatalogSnapshot, 'prompts' | 'upstreams'>): Collision[] {
  const owner = new Map<string, string>(snap.prompts.map((p) => [p.name, 'local']));
  const out: Collision[] = [];
  for (const u of snap.upstreams ?? [])
    for (const p of u.prompts) {
      const first = owner.get(p.name);
      if (first) out.push({ name: p.name, upstream: u.id, winner: first });
      else owner.set(p.name, u.id);
    }
  return out;
}
