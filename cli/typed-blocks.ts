/**
 * A Markdown prompt's typed sections (files.ts): a section whose whole body is one fenced block
 * tagged `image`, `audio`, `resource` or `resource_link` is that content block, described in
 * YAML. `file:` in an image, audio or resource block names an asset relative to the prompt file,
 * inside the prompts directory, sent as base64 (image, audio) or as its text (resource).
 */
import { isNode, parseDocument } from 'yaml';
import { isRecord } from '../src/lib/json.js';
import { FileError, NOT_UTF8, utf8Text } from './file-text.js';

export interface FileSource {
  /** Prompt files: path → text. */
  files: ReadonlyMap<string, string>;
  /** Reads an asset (path already resolved against the prompt file). */
  readAsset(path: string): Uint8Array | undefined;
}

/**
 * One fenced block and nothing after it: no line of the YAML starts with a fence, so a section
 * that goes on past the block's closing fence (more text, another code block) is a text block.
 * The YAML keeps its last line break, as the front matter's does: a keep-chomped (`|+`) last value holds it.
 */
const TYPED_BLOCK = /^```(image|audio|resource|resource_link)[ \t]*\n((?:(?!```)[^\n]*\n)+)```$/;
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

/** A path from the root of a disk (`/tmp/x`, `C:/x`), not from the prompt file. */
const ABSOLUTE = /^(\/|[A-Za-z]:)/;

/**
 * Relative `rel` against the prompt file's folder, or undefined when its `..` climb out of the
 * prompts directory: dropping the extra `..` would quietly read another file than the one named.
 */
function resolve(from: string, rel: string): string | undefined {
  const parts = from.split('/').slice(0, -1);
  for (const seg of rel.split('/')) {
    if (seg === '..') {
      if (!parts.length) return undefined;
      parts.pop();
    } else if (seg !== '.' && seg !== '') parts.push(seg);
  }
  return parts.join('/');
}

function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** A `resource` block's file, which is sent as its text. */
function assetText(bytes: Uint8Array, file: unknown): string {
  const text = utf8Text(bytes);
  if (typeof text !== 'string') throw new FileError(`resource.file: ${String(file)}, line ${text.line}, ${NOT_UTF8}`);
  return text;
}

/**
 * The block's YAML as an object, and the prompt file's line of one of its keys; a syntax error is
 * placed at its line in the prompt file (`fence`: the opening fence's).
 */
function blockSpec(
  kind: string,
  yaml: string,
  fence: number,
): { spec: Record<string, unknown>; lineOf: (key: string) => number | undefined } {
  const doc = parseDocument(yaml);
  const e = doc.errors[0];
  if (e) {
    const message = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    throw new FileError(`${kind} block: ${message}`, fence + (e.linePos?.[0].line ?? 0));
  }
  const spec: unknown = doc.toJS();
  if (!isRecord(spec)) throw new FileError(`${kind} block must be a YAML mapping`);
  const lineOf = (key: string) => {
    const node = doc.get(key, true);
    return isNode(node) && node.range ? fence + yaml.slice(0, node.range[0]).split('\n').length : undefined;
  };
  return { spec, lineOf };
}

/** The content block `section` describes, or undefined when it is not one typed block (then it is text). */
export function typedBlock(
  section: string,
  fence: number,
  path: string,
  src: FileSource,
): Record<string, unknown> | undefined {
  const typed = TYPED_BLOCK.exec(section);
  if (!typed) return undefined;
  const kind = typed[1]!;
  const { spec, lineOf } = blockSpec(kind, typed[2]!, fence);
  const { file, ...rest } = spec;
  // A link points at its uri, and the gateway sends no bytes for it: a file would be read and then lost.
  if (kind === 'resource_link' && file !== undefined)
    throw new FileError(
      'resource_link.file: a resource link takes no file (it points at its uri); a resource block sends a file as its text',
    );
  let bytes: Uint8Array | undefined;
  let mime: string | undefined;
  if (file !== undefined) {
    if (typeof file !== 'string') throw new FileError(`${kind}.file must be a path`);
    // A file elsewhere on the author's disk would be read and published with the prompt. On Windows a
    // \ separates folders too, so `..\x` would climb out past resolve's check.
    const assetPath = ABSOLUTE.test(file) || file.includes('\\') ? undefined : resolve(path, file);
    if (assetPath === undefined)
      throw new FileError(
        `${kind}.file: ${file} is not inside the prompts directory: a file: path is relative to the prompt file, with / between folders, and may not leave the prompts directory`,
        lineOf('file'),
      );
    bytes = src.readAsset(assetPath);
    if (!bytes) throw new FileError(`${kind}.file: cannot read ${assetPath}`);
    mime = MIME_BY_EXT[file.split('.').pop()?.toLowerCase() ?? ''];
  }
  switch (kind) {
    case 'image':
    case 'audio':
      return { type: kind, mimeType: mime, ...rest, ...(bytes ? { data: toBase64(bytes) } : {}) };
    case 'resource': {
      // Annotations are the block's: a resource's contents have none, and would be refused holding them.
      const { annotations, ...contents } = rest;
      return {
        type: 'resource',
        resource: { mimeType: mime, ...contents, ...(bytes ? { text: assetText(bytes, file) } : {}) },
        ...(annotations !== undefined ? { annotations } : {}),
      };
    }
    default:
      return { type: 'resource_link', ...rest };
  }
}
