/**
 * Namespaced prompt names: `<prefix><separator><name>`, or `<name>` for an
 * upstream mounted without a prefix (routed by its listing alone).
 *
 * Prefixes cannot contain the separator, so the upstream is always the part
 * before the first separator, from the name alone. Names are mapped to
 * [A-Za-z0-9_.-]; a result over 64 characters keeps a readable head and
 * ends in a deterministic hash of the original, so it stays unique and the
 * upstream stays recoverable; the original name is then found in the
 * upstream's snapshot.
 */

export const MAX_NAME = 64;
/** The hash tail of a name cut short: `-` and 13 characters. */
const TAIL = 14;
/** The longest `<prefix><separator>` a cut-short name still holds whole (parse.ts bounds prefixes by it). */
export const MAX_PREFIXED = MAX_NAME - TAIL;

/** FNV-1a 64-bit as 13 base-36 characters: short, stable, no crypto needed for naming. */
export function shortHash(s: string): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(s)) {
    h ^= BigInt(byte);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(36).padStart(13, '0');
}

export function sanitize(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]/g, '_');
}

export function namespaced(prefix: string, separator: string, name: string): string {
  const clean = sanitize(name);
  const full = prefix === '' ? clean : `${prefix}${separator}${clean}`; // "": mounted without a prefix
  if (clean === name && full.length <= MAX_NAME) return full;
  // Lossy (characters replaced) or too long: a hash of the original keeps it unique.
  const tail = `-${shortHash(name)}`;
  return `${full.slice(0, MAX_NAME - tail.length)}${tail}`;
}

/** The prefix a namespaced name belongs to, or null for a local (unprefixed) name. */
export function prefixOf(name: string, separator: string): { prefix: string; rest: string } | null {
  const i = name.indexOf(separator);
  return i <= 0 ? null : { prefix: name.slice(0, i), rest: name.slice(i + separator.length) };
}
