/**
 * Records → prompt files, the inverse of files.ts (for `promptgate pull`).
 *
 * Writes Markdown when the round trip is exact, and JSON otherwise (text with
 * a line that looks like a section heading or a typed block, or with
 * leading/trailing blank space the Markdown form would trim; a field the
 * Markdown form has no place for, such as a text block's `annotations` or a
 * message's own `_meta`; a name whose `.md` file a directory read skips, such
 * as `README`). Exact is checked, not assumed: the Markdown is loaded back as
 * push loads it, and any difference means JSON. Image and audio data go to
 * asset files referenced with `file:`.
 */
import { stringify as toYaml } from 'yaml';
import { canonical } from '../src/catalog/diff.js';
import type { PromptRecord } from '../src/catalog/types.js';
import { isPromptFile } from './files.js';
import { loadPromptFiles } from './load.js';

export interface SerializedPrompt {
  path: string;
  text: string;
  assets: { path: string; bytes: Uint8Array }[];
}

const EXT: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'audio/wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
};

function fromBase64(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function markdownSafe(text: string): boolean {
  return (
    text === text.trim() &&
    text !== '' &&
    !/^##[ \t]+(user|assistant)[ \t]*$/im.test(text) &&
    !/^```(image|audio|resource|resource_link)\b/.test(text) &&
    !text.includes('\r')
  );
}

/** Whether `o` has no keys but these: the Markdown form writes those alone. */
const only = (o: object, keys: readonly string[]) => Object.keys(o).every((k) => keys.includes(k));

/** Windows device names: no file so named, whatever its extension, can be made there. */
const DEVICE = /^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i;

/**
 * The file stem of each prompt name: the name itself, unless it would share a file with another
 * on a case-insensitive file system (`Foo`, `foo`; macOS and Windows by default) or is a Windows
 * device name. Then `<name>~<n>` (`con~2.v2` for `con.v2`): `~` is in no prompt name, and a prompt's name is read from its
 * file, never from the file's name. Sorted, so a catalog pulls to the same files every time.
 */
export function fileStems(names: readonly string[]): Map<string, string> {
  const taken = new Set<string>();
  const stems = new Map<string, string>();
  for (const name of [...names].sort()) {
    let stem = name;
    // The mark goes before the first dot: Windows reads a device name in what comes before it (`con.v2`).
    for (let n = 2; taken.has(stem.toLowerCase()) || DEVICE.test(stem); n++)
      stem = name.replace(/^[^.]*/, (head) => `${head}~${n}`);
    taken.add(stem.toLowerCase());
    stems.set(name, stem);
  }
  return stems;
}

/** Whether `file` loads back, as push loads it, to exactly `r`. */
function loadsAs(file: SerializedPrompt, r: PromptRecord): boolean {
  const assets = new Map(file.assets.map((a) => [a.path, a.bytes]));
  const { records, issues } = loadPromptFiles({
    files: new Map([[file.path, file.text]]),
    readAsset: (p) => assets.get(p),
  });
  return !issues.length && records.length === 1 && canonical(records[0]) === canonical(r);
}

/** `stem`: the file name without its extension (fileStems), the prompt's name unless said otherwise. */
export function serializePrompt(r: PromptRecord, stem = r.name): SerializedPrompt {
  const markdown = toMarkdown(r, stem);
  if (markdown && loadsAs(markdown, r)) return markdown;
  return { path: `${stem}.json`, text: `${JSON.stringify(r, null, 2)}\n`, assets: [] };
}

/**
 * The Markdown form, or undefined where it has no place for something. YAML is written whole, its
 * last line break included: trimmed, a value's trailing blank space would be lost with it.
 */
function toMarkdown(r: PromptRecord, stem: string): SerializedPrompt | undefined {
  const assets: SerializedPrompt['assets'] = [];
  const lossless =
    isPromptFile(`${stem}.md`) &&
    r.messages.every((m) => {
      const c = m.content as { type: string; text?: string; data?: string; mimeType?: string };
      if (!only(m, ['role', 'content'])) return false;
      if (c.type === 'text') return only(c, ['type', 'text']) && markdownSafe(c.text ?? '');
      if (c.type === 'image' || c.type === 'audio') return !!EXT[c.mimeType ?? ''];
      if (c.type === 'resource') return only(c, ['type', 'resource']);
      return true;
    });
  if (!lossless) return undefined;

  const { messages, ...meta } = r;
  const sections = messages.map((m, i) => {
    const c = m.content as unknown as Record<string, unknown>;
    let body: string;
    if (c.type === 'text') body = c.text as string;
    else if (c.type === 'image' || c.type === 'audio') {
      const path = `assets/${stem}-${i + 1}.${EXT[c.mimeType as string]}`;
      assets.push({ path, bytes: fromBase64(c.data as string) });
      const { type: _t, data: _d, mimeType: _m, ...rest } = c;
      body = '```' + String(c.type) + '\n' + toYaml({ file: path, ...rest }) + '```';
    } else if (c.type === 'resource') {
      body = '```resource\n' + toYaml(c.resource) + '```';
    } else {
      const { type: _t, ...rest } = c;
      body = '```resource_link\n' + toYaml(rest) + '```';
    }
    return `## ${m.role}\n\n${body}\n`;
  });
  return { path: `${stem}.md`, text: `---\n${toYaml(meta)}---\n\n${sections.join('\n')}`, assets };
}
