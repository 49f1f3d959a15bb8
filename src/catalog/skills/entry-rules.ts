/**
 * What SEP-2640 clients require of a skill entry beyond its JSON shape, as the official SDK's
 * SkillsClient checks it (`validateSkillEntry`, @modelcontextprotocol/client/ext/skills): one entry
 * it refuses makes its skills/list throw for the whole listing. Local records (validate.ts) and
 * upstream entries (upstreams/skill-entries.ts) are held to these rules, and so is every upstream URI
 * a read is routed to (owners.ts), so nothing listed or forwarded is something a client would refuse.
 */
import { isRecord } from '../../lib/json.js';
import { quote } from '../issues.js';

/** Agent Skills names: lowercase letters, digits and single hyphens, 1-64, no hyphen at either end. */
export const SKILL_NAME = /^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;
const MAX_DESCRIPTION = 1024;
const MAX_COMPATIBILITY = 500;
const MAX_SKILL_URI = 1024;
const SCHEME = 'skill://';

/** Characters as the SDK counts them: code points, so a character outside the BMP is one, not two. */
function countCharacters(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i += (text.codePointAt(i) ?? 0) > 0xffff ? 2 : 1) n++;
  return n;
}

/** One problem of a front matter: the field, and what is wrong with it. */
export type FieldProblem = [field: string, message: string];

/**
 * The front matter's problems for a client, `folder` being the skill folder's (decoded) name.
 * `compatibility` and `metadata` are optional; `__proto__` is a key no client keeps (its schema drops
 * it, its SKILL.md reader refuses it), so the front matter it verifies would differ from the entry's.
 */
export function frontmatterProblems(fm: Record<string, unknown>, folder: unknown): FieldProblem[] {
  const out: FieldProblem[] = [];
  if (fm.name !== folder) out.push(['frontmatter.name', `must equal the skill's folder name ${quote(folder)}`]);
  const d = fm.description;
  if (typeof d !== 'string' || d.trim() === '') out.push(['frontmatter.description', 'required (a non-empty string)']);
  else if (countCharacters(d) > MAX_DESCRIPTION)
    out.push(['frontmatter.description', `longer than ${MAX_DESCRIPTION} characters`]);
  const c = fm.compatibility;
  if (c !== undefined && (typeof c !== 'string' || c === '' || countCharacters(c) > MAX_COMPATIBILITY))
    out.push(['frontmatter.compatibility', `must be a string of 1-${MAX_COMPATIBILITY} characters`]);
  const m = fm.metadata;
  if (m !== undefined && !isRecord(m)) out.push(['frontmatter.metadata', 'must map strings to strings']);
  else if (m)
    for (const [k, v] of Object.entries(m))
      if (typeof v !== 'string')
        out.push([
          `frontmatter.metadata.${k.slice(0, 60)}`,
          `must be a string, not ${quote(v)} (quote it in SKILL.md)`,
        ]);
  if (Object.hasOwn(fm, '__proto__')) out.push(['frontmatter.__proto__', 'is a key clients cannot read']);
  return out;
}

/** A URI's path segment as clients resolve it, decoded; undefined when it does not decode or is refused. */
function decodedSegment(segment: string): string | undefined {
  let s: string;
  try {
    s = decodeURIComponent(segment);
  } catch {
    return undefined;
  }
  // Empty, `.` and `..` in any spelling (`%2e%2e` is `..` to a URL parser), a separator, a control character.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  return s === '' || s === '.' || s === '..' || /[/\\\x00-\x1f\x7f]/.test(s) ? undefined : s;
}

/**
 * A `skill://` URI an upstream may list or be sent: bounded, no whitespace, control characters, `?`, `#`
 * or backslash as written, and every segment one clients resolve in place (decodedSegment), so it names
 * exactly one file inside the folders its segments spell. Returns its decoded segments (how clients tell
 * two spellings of one file apart), or undefined when refused.
 */
export function skillUriSegments(v: unknown): string[] | undefined {
  if (typeof v !== 'string' || !v.startsWith(SCHEME) || v.length > MAX_SKILL_URI) return undefined;
  // eslint-disable-next-line no-control-regex
  if (/[\s\x00-\x1f\x7f?#\\]/.test(v)) return undefined;
  const raw = v.slice(SCHEME.length).split('/');
  if (raw.length < 2) return undefined;
  const out: string[] = [];
  for (const segment of raw) {
    const s = decodedSegment(segment);
    if (s === undefined) return undefined;
    out.push(s);
  }
  return out;
}
