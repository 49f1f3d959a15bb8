/**
 * The paths a pull plans, checked before anything is written (pull-target.ts): each stays inside
 * the directory, and together they can all exist on one disk. Records published before the
 * gateway refused clashing names (skills/validate.ts) may hold a file where another needs a
 * folder, or two spellings of one name that macOS and Windows keep as one file; pull names them
 * instead of failing part-way with an ENOTDIR or overwriting one with the other.
 */

import { foldPath as fold } from '../src/catalog/skills/validate.js';

/** A relative `/`-separated path with no empty, `.` or `..` segment. */
export const safePath = (p: string) =>
  p !== '' && !p.startsWith('/') && !p.includes('\\') && !p.split('/').some((s) => s === '' || s === '.' || s === '..');

/** Each pair of planned paths that cannot both be written, described for the user. */
export function clashes(paths: readonly string[]): string[] {
  const files = new Map<string, string>();
  const out: string[] = [];
  for (const p of paths) {
    const other = files.get(fold(p));
    if (other === undefined) files.set(fold(p), p);
    else out.push(`${other} and ${p} (one file on macOS and Windows)`);
  }
  for (const p of paths) {
    const segments = p.split('/');
    for (let i = 1; i < segments.length; i++) {
      const file = files.get(fold(segments.slice(0, i).join('/')));
      if (file !== undefined) out.push(`${file} is a file, and ${p} needs it to be a folder`);
    }
  }
  return out;
}
