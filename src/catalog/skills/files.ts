/**
 * A local skill file's bytes for resources/read, and its `contents` item. Bytes are found by digest in
 * this isolate, then the edge cache, then KV (which fills the edge cache): a digest names one content
 * forever, so no layer ever needs to be invalidated.
 */
import { encodeBase64 } from '../../lib/base64url.js';
import type { RequestScope } from '../../lib/scope.js';
import { originOf } from '../../lib/url.js';
import { readFileBytes, writeFileBytes } from '../edge.js';
import { keepSkillFile, knownSkillFile, readSkillFile } from './file-store.js';
import type { LocalSkillFile } from './index.js';
import { isTextual } from './mime.js';

export type FileContents =
  { uri: string; mimeType: string; text: string } | { uri: string; mimeType: string; blob: string };

/** The file's bytes, or undefined when KV has none yet (a publish from another location not yet visible here). */
export async function skillFileBytes(q: RequestScope, digest: string): Promise<Uint8Array | undefined> {
  const known = knownSkillFile(digest);
  if (known) {
    q.record.cache = 'isolate';
    return known;
  }
  const origin = originOf(q.url);
  const hex = digest.slice('sha256:'.length);
  const cached = await readFileBytes(origin, hex);
  if (cached) {
    q.record.cache = 'edge';
    keepSkillFile(digest, cached);
    return cached;
  }
  q.record.cache = 'kv';
  const bytes = await readSkillFile(q.env.PROMPTS, digest);
  if (bytes) q.waitUntil(writeFileBytes(origin, hex, bytes));
  return bytes;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Text types that decode as UTF-8 go as `text` (exactly these bytes, BOM kept); anything else as a base64 `blob`. */
export function fileContents(file: LocalSkillFile, bytes: Uint8Array): FileContents {
  const { uri, mimeType } = file;
  if (isTextual(mimeType)) {
    try {
      return { uri, mimeType, text: utf8.decode(bytes) };
    } catch {
      // Not UTF-8 after all: the bytes still reach the client unchanged, as a blob.
    }
  }
  return { uri, mimeType, blob: encodeBase64(bytes) };
}
