/**
 * One prompt file → its (unvalidated) record: the parsing half of the one
 * loader (load.ts `loadPromptFiles`, which the CLI, `npm start`'s seeding and
 * the tests all go through).
 *
 * A prompt is a Markdown file with YAML front matter (the record's metadata)
 * and `## user` / `## assistant` sections (its messages). A section whose
 * whole body is one fenced block tagged `image`, `audio`, `resource` or
 * `resource_link` becomes that content block, described in YAML
 * (typed-blocks.ts). `.json`, `.yaml` and `.yml` files hold a whole record
 * instead.
 *
 * Authoring code beside the CLI, not part of the Worker bundle (the Worker
 * receives validated records); file access comes in through `FileSource`.
 */
import { isNode, LineCounter, parseDocument, type Document } from 'yaml';
import { FileError } from './file-text.js';
import { typedBlock, type FileSource } from './typed-blocks.js';

export { NOT_UTF8, utf8Text } from './file-text.js';
export type { FileSource } from './typed-blocks.js';

const SECTION = /^##[ \t]+(user|assistant)[ \t]*$/gm;
/** A heading that is a role's only when case is ignored (`## Assistant`): it would be folded into the turn above. */
const MISCASED = /^##[ \t]+(user|assistant)[ \t]*$/gim;

export function isPromptFile(path: string): boolean {
  return /\.(md|json|ya?ml)$/i.test(path) && !/(^|\/)README\.md$/i.test(path);
}

/**
 * The first key an object of a JSON text repeats, with its line: JSON.parse keeps only the last
 * one, so a second `"groups"` would silently replace the first. `text` must already parse.
 */
function repeatedKey(text: string): { key: string; line: number } | undefined {
  // Strings as one token each (unrolled, so a string of megabytes is matched without backtracking).
  const token = /"[^"\\]*(?:\\.[^"\\]*)*"|[{}[\]]/g;
  const colon = /\s*:/y;
  const open: (Set<string> | undefined)[] = [];
  for (let m = token.exec(text); m; m = token.exec(text)) {
    const t = m[0];
    if (t === '{') open.push(new Set());
    else if (t === '[') open.push(undefined);
    else if (t === '}' || t === ']') open.pop();
    else {
      colon.lastIndex = token.lastIndex;
      const keys = open.at(-1);
      if (!keys || !colon.test(text)) continue;
      const key = JSON.parse(t) as string;
      if (keys.has(key)) return { key, line: text.slice(0, m.index).split('\n').length };
      keys.add(key);
    }
  }
  return undefined;
}

function parseJson(text: string): unknown {
  const record: unknown = JSON.parse(text);
  const repeated = repeatedKey(text);
  if (repeated)
    throw new FileError(
      `key ${JSON.stringify(repeated.key)} appears twice in one object (JSON would keep only the last): keep one`,
      repeated.line,
    );
  return record;
}

/** Finds the 1-based line of a field path ("arguments[1].name") in a file, or of its nearest parent. */
export type Locate = (fieldPath: string) => number | undefined;

function pathKeys(fieldPath: string): (string | number)[] {
  return [...fieldPath.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]!));
}

function yamlLocator(doc: Document, lines: LineCounter, firstLine: number): Locate {
  return (fieldPath) => {
    const keys = pathKeys(fieldPath);
    for (let n = keys.length; n >= 0; n--) {
      const node = n === 0 ? doc.contents : doc.getIn(keys.slice(0, n), true);
      if (isNode(node) && node.range) return lines.linePos(node.range[0]).line + firstLine - 1;
    }
    return undefined;
  };
}

function parseMarkdown(path: string, text: string, src: FileSource): { record: unknown; locate: Locate } {
  const fm = /^---[ \t]*\r?\n([\s\S]*?\r?\n)---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!fm) throw new FileError('missing YAML front matter (a block between --- lines at the top)');
  const lines = new LineCounter();
  const doc = parseDocument(fm[1]!, { lineCounter: lines });
  if (doc.errors.length) throw new FileError(`front matter: ${doc.errors[0]!.message.split('\n')[0]}`);
  const meta = doc.toJS() as Record<string, unknown> | null;
  if (!meta || typeof meta !== 'object' || Array.isArray(meta))
    throw new FileError('front matter must be a YAML mapping');
  const bodyStart = fm[0].split('\n').length - (fm[0].endsWith('\n') ? 1 : 0);
  const body = text.slice(fm[0].length).replace(/\r\n/g, '\n');
  const lineAt = (offset: number) => bodyStart + body.slice(0, offset).split('\n').length;
  const metaLocate = yamlLocator(doc, lines, 2);
  // The messages are the sections: a front-matter list beside them would be dropped unread.
  if (Object.hasOwn(meta, 'messages'))
    throw new FileError(
      'messages: not a front-matter field: a Markdown prompt\'s messages are its "## user" and "## assistant" sections',
      metaLocate('messages'),
    );
  for (const m of body.matchAll(MISCASED))
    if (m[1] !== 'user' && m[1] !== 'assistant')
      throw new FileError(
        `"${m[0].trim()}" is not a section heading, and would be text of the section above: write "## ${m[1]!.toLowerCase()}"`,
        lineAt(m.index),
      );
  const heads = [...body.matchAll(SECTION)];
  const locate: Locate = (fieldPath) => {
    const m = /^messages\[(\d+)\]/.exec(fieldPath);
    if (m) return heads[Number(m[1])] ? lineAt(heads[Number(m[1])]!.index) : undefined;
    return metaLocate(fieldPath);
  };
  const lead = body.slice(0, heads[0]?.index ?? body.length).trim();
  if (lead) throw new FileError('text before the first "## user" or "## assistant" heading');
  const messages = heads.map((h, i) => {
    const start = h.index + h[0].length;
    const raw = body.slice(start, heads[i + 1]?.index ?? body.length);
    const section = raw.replace(/^\n+|\s+$/g, '');
    const fence = lineAt(start + raw.length - raw.replace(/^\n+/, '').length);
    return { role: h[1], content: typedBlock(section, fence, path, src) ?? { type: 'text', text: section } };
  });
  return { record: { ...meta, messages }, locate };
}

/** Parses one file into an (unvalidated) record, with a way to find a field's line. */
export function parsePromptFile(path: string, text: string, src: FileSource): { record: unknown; locate: Locate } {
  // An editor's byte order mark is no part of the text (SKILL.md and YAML take one too).
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  if (/\.json$/i.test(path)) return { record: parseJson(text), locate: () => undefined };
  if (/\.ya?ml$/i.test(path)) {
    const lines = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lines });
    if (doc.errors.length) throw new FileError(doc.errors[0]!.message.split('\n')[0]!);
    return { record: doc.toJS(), locate: yamlLocator(doc, lines, 1) };
  }
  return parseMarkdown(path, text, src);
}
