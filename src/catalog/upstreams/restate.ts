/**
 * A kept listing brought under its upstream's allow, deny, aliases and reserved heads as configured now
 * (upstream-listings.ts reconciles with it). Its names were made under the configuration in force
 * when it was listed, and while the upstream fails no new listing replaces them: a newly denied
 * prompt would stay listed (stale) while every method refuses it (access.ts), and a renamed one
 * would be listed under a name that no longer routes. Exact, because each prompt keeps the
 * upstream's own name (`origin.name`) that sanitize.ts made its published one from; a prompt
 * allowed only now was never kept, and comes with the next listing.
 */
import { sha256Hex } from '../../lib/hash.js';
import { canonical } from '../diff.js';
import type { UpstreamState } from '../types.js';
import { publisher } from './access.js';
import type { UpstreamConfig } from './schema.js';

/**
 * The state with its prompts as `u` publishes them (its prefix must be the state's), or undefined
 * when they already are. The digest is the new prompts', as a listing of them would have. Its
 * `skipped` are the kept prompts that lost their names now: the ones skipped under the old
 * configuration were never kept, and the next listing names them as this one publishes them.
 */
export async function restated(
  state: UpstreamState,
  u: UpstreamConfig,
  separator: string,
): Promise<UpstreamState | undefined> {
  // As sanitize.ts lists: a prefix configured since takes its namespace back from an unprefixed upstream,
  // an alias configured since takes its name, and each name is listed once.
  const { publish, skipped } = publisher(u, separator);
  const prompts = state.prompts.flatMap((p) => {
    const name = publish(p.origin.name);
    return name === undefined ? [] : [{ ...p, name }];
  });
  if (prompts.length === state.prompts.length && prompts.every((p, i) => p.name === state.prompts[i]!.name))
    return undefined;
  const { skipped: _old, ...rest } = state;
  return { ...rest, prompts, digest: await sha256Hex(canonical(prompts)), ...(skipped.length && { skipped }) };
}
