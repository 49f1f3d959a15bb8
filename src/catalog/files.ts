/**
 * Prompt files → prompt records. The one loader: seeding, tests and (later)
 * the CLI all go through `loadPromptFiles`.
 *
 * A prompt is a Markdown file with YAML front matter (the record's metadata)
 * and `## user` / `## assistant` sections (its messages). A section whose
 * whole body is one fenced block tagged `image`, `audio`, `resource` or
 * `resource_link` becomes that content block, described in YAML; `file:`
 * inside it names an asset relative to the prompt file. `.json`, `.yaml`
 * and `.yml` files hold a whole record instead.
 *
 * Runs in Node and in workerd: file access comes in through `FileSource`.
 * Not part of the Worker bundle (the Worker receives validated records).
 */
import { parse as parseYaml } from 'yaml';
import type { Issue, PromptRecord } from './types.js';
import { validatePrompt } from './validate.js';

export interface FileSource {
  /** Prompt files: path → text. */
  files: ReadonlyMap<string, string>;
  /** Reads an asset (path already resolved against the prompt file). */
  readAsset(path: string): Uint8Array | undefined;
}

export interface LoadResult {
  records: PromptRecord[];
  issues: Issue[];
  /** Which file each loaded prompt came from: name → path. */
  sources: Map<string, string>;
}

const SECTION = /^##[ \t]+(user|assistant)[ \t]*$/gm;
const TYPED_BLOCK = /^```(image|audio|resource|resource_link)[ \t]*\n([\s\S]*?)\n```$/;
const MIME_BY_EXT: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', svg: 'image/svg+xml',
  wav: 'audio/wav', mp3: 'audio/mpeg', ogg: 'audio/ogg', txt: 'text/plain', md: 'text/markdown', json: 'application/json',
  log: 'text/plain', ts: 'text/x-typescript', js: 'text/javascript', py: 'text/x-python',
};

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
      return { type: 'resource', resource: { mimeType: mime, ...rest, ...(bytes ? { text: new TextDecoder().decode(bytes) } : {}) } };
    default:
      return { type: 'resource_link', ...rest };
  }
}

function parseMarkdown(path: string, text: string, src: FileSource): unknown {
  const fm = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!fm) throw new FileError('missing YAML front matter (a block between --- lines at the top)');
  const meta = parseYaml(fm[1]!) as Record<string, unknown> | null;
  if (!meta || typeof meta !== 'object' || Array.isArray(meta)) throw new FileError('front matter must be a YAML mapping');
  const body = text.slice(fm[0].length).replace(/\r\n/g, '\n');
  const heads = [...body.matchAll(SECTION)];
  const lead = body.slice(0, heads[0]?.index ?? body.length).trim();
  if (lead) throw new FileError('text before the first "## user" or "## assistant" heading');
  const messages = heads.map((h, i) => {
    const start = h.index + h[0].length;
    const section = body.slice(start, heads[i + 1]?.index ?? body.length).replace(/^\n+|\s+$/g, '');
    const typed = TYPED_BLOCK.exec(section);
    const content = typed ? typedBlock(typed[1]!, typed[2]!, path, src) : { type: 'text', text: section };
    return { role: h[1], content };
  });
  return { ...meta, messages };
}

/** Parses one file into an (unvalidated) record. */
export function parsePromptFile(path: string, text: string, src: FileSource): unknown {
  if (/\.json$/i.test(path)) return JSON.parse(text);
  if (/\.ya?ml$/i.test(path)) return parseYaml(text);
  return parseMarkdown(path, text, src);
}

/** Loads and validates every prompt file; issues are prefixed with the file path. */
export function loadPromptFiles(src: FileSource): LoadResult {
  const records: PromptRecord[] = [];
  const issues: Issue[] = [];
  const owner = new Map<string, string>();
  for (const [path, text] of [...src.files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (!isPromptFile(path)) continue;
    let record: unknown;
    try {
      record = parsePromptFile(path, text, src);
    } catch (e) {
      issues.push({ path, message: e instanceof Error ? e.message : String(e) });
      continue;
    }
    const own = validatePrompt(record);
    for (const i of own) issues.push({ path: `${path}: ${i.path}`, message: i.message });
    if (own.length) continue;
    const r = record as PromptRecord;
    const prev = owner.get(r.name);
    if (prev) issues.push({ path: `${path}: name`, message: `duplicate prompt name "${r.name}" (also in ${prev})` });
    else {
      owner.set(r.name, path);
      records.push(r);
    }
  }
  return { records, issues, sources: owner };
}
