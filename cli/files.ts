/**
 * One prompt file → its (unvalidated) record: the parsing half of the one
 * loader (load.ts `loadPromptFiles`, which the CLI, `npm start`'s seeding and
 * the tests all go through).
 *
 * A prompt is a Markdown file with YAML front matter (the record's metadata)
 * and `## user` / `## assistant` sections (its messages). A section whose
 * whole body is one fenced block tagged `image`, `audio`, `resource` or
 * `resource_link` becomes that content block, described in YAML; `file:`
 * inside it names an asset relative to the prompt file. `.json`, `.yaml`
 * and `.yml` files hold a whole record instead.
 *
 * Authoring code beside the CLI, not part of the Worker bundle (the Worker
 * receives validated records); file access comes in through `FileSource`.
 */
import { isNode, LineCounter, parse as parseYaml, parseDocument, type Document } from 'yaml';

export interface FileSource {
  /** Prompt files: path → text. */
  files: ReadonlyMap<string, string>;
  /** Reads an asset (path already resolved against the prompt file). */
  readAsset(path: string): Uint8Array | undefined;
}

const SECTION = /^##[ \t]+(user|assistant)[ \t]*$/gm;
// The YAML keeps its last line break, as the front matter's does: a keep-chomped (`|+`) last value holds it.
const TYPED_BLOCK = /^```(image|audio|resource|resource_link)[ \t]*\n([\s\S]*?\n)```$/;
const MIME_BY_EXT: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  txt: 'text/plain',
  md: 'text/markdown',
  json: 'application/json',
  log: 'text/plain',
  ts: 'text/x-typescript',
  js: 'text/javascript',
  py: 'text/x-python',
};

/** Strict: a byte that is not UTF-8 would be published as U+FFFD, text the author never wrote. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A text file's bytes as text, or the 1-based line of its first byte that is not UTF-8. Lines are
 * split on the newline byte, which never occurs inside a UTF-8 sequence.
 */
export function utf8Text(bytes: Uint8Array): string | { line: number } {
  try {
    return UTF8.decode(bytes);
  } catch {
    let line = 1;
    for (let start = 0, end = 0; end <= bytes.length; end++) {
      if (end < bytes.length && bytes[end] !== 0x0a) continue;
      try {
        UTF8.decode(bytes.subarray(start, end));
      } catch {
        return { line };
      }
      line++;
      start = end + 1;
    }
    return { line };
  }
}

/** What an author is told of a file that is not UTF-8 text. */
export const NOT_UTF8 =
  'is not UTF-8 text: save it as UTF-8 (what is published is text, and the gateway takes only UTF-8)';

export function isPromptFile(path: string): boolean {
  return /\.(md|json|ya?ml)$/i.test(path) && !/(^|\/)README\.md$/i.test(path);
}

function resolve(from: string, rel: string): string {
  const parts = from.split('/').slice(0, -1);
  for (const seg of rel.split('/')) {
    if (seg === '..') parts.pop();
    else if (seg !== '.' && seg !== '') parts.push(seg);
  }
  return parts.join('/');
}

function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

class FileError extends Error {}

/** A `resource` block's file, which is sent as its text. */
function assetText(bytes: Uint8Array, file: unknown): string {
  const text = utf8Text(bytes);
  if (typeof text !== 'string') throw new FileError(`resource.file: ${String(file)}, line ${text.line}, ${NOT_UTF8}`);
  return text;
}

function typedBlock(kind: string, yamlText: string, path: string, src: FileSource): Record<string, unknown> {
  const spec = parseYaml(yamlText) as Record<string, unknown> | null;
  if (!spec || typeof spec !== 'object') throw new FileError(`${kind} block must be a YAML mapping`);
  const { file, ...rest } = spec;
  let bytes: Uint8Array | undefined;
  let mime: string | undefined;
  if (file !== undefined) {
    if (typeof file !== 'string') throw new FileError(`${kind}.file must be a path`);
    const assetPath = resolve(path, file);
    bytes = src.readAsset(assetPath);
    if (!bytes) throw new FileError(`${kind}.file: cannot read ${assetPath}`);
    mime = MIME_BY_EXT[file.split('.').pop()?.toLowerCase() ?? ''];
  }
  switch (kind) {
    case 'image':
    case 'audio':
      return { type: kind, mimeType: mime, ...rest, ...(bytes ? { data: toBase64(bytes) } : {}) };
    case 'resource':
      return {
        type: 'resource',
        resource: { mimeType: mime, ...rest, ...(bytes ? { text: assetText(bytes, file) } : {}) },
      };
    default:
      return { type: 'resource_link', ...rest };
  }
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
  const heads = [...body.matchAll(SECTION)];
  const headLine = (i: number) => bodyStart + body.slice(0, heads[i]!.index).split('\n').length;
  const metaLocate = yamlLocator(doc, lines, 2);
  const locate: Locate = (fieldPath) => {
    const m = /^messages\[(\d+)\]/.exec(fieldPath);
    if (m) return heads[Number(m[1])] ? headLine(Number(m[1])) : undefined;
    return metaLocate(fieldPath);
  };
  const lead = body.slice(0, heads[0]?.index ?? body.length).trim();
  if (lead) throw new FileError('text before the first "## user" or "## assistant" heading');
  const messages = heads.map((h, i) => {
    const start = h.index + h[0].length;
    const section = body.slice(start, heads[i + 1]?.index ?? body.length).replace(/^\n+|\s+$/g, '');
    const typed = TYPED_BLOCK.exec(section);
    const content = typed ? typedBlock(typed[1]!, typed[2]!, path, src) : { type: 'text', text: section };
    return { role: h[1], content };
  });
  return { record: { ...meta, messages }, locate };
}

/** Parses one file into an (unvalidated) record, with a way to find a field's line. */
export function parsePromptFile(path: string, text: string, src: FileSource): { record: unknown; locate: Locate } {
  // An editor's byte order mark is no part of the text (SKILL.md and YAML take one too).
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  if (/\.json$/i.test(path)) return { record: JSON.parse(text), locate: () => undefined };
  if (/\.ya?ml$/i.test(path)) {
    const lines = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lines });
    if (doc.errors.length) throw new FileError(doc.errors[0]!.message.split('\n')[0]);
    return { record: doc.toJS(), locate: yamlLocator(doc, lines, 1) };
  }
  return parseMarkdown(path, text, src);
}
