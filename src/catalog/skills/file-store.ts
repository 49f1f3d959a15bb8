/**
 * Skill file bytes in Workers KV, addressed by digest: `skills/files/<64 hex>`. A digest names
 * exactly one content, so a file is written once, never overwritten, and may be cached forever
 * (isolate memo here, the edge cache in the serving path). Publishing checks every listed digest
 * is present before a skill that names it can become visible (docs/skills.md).
 */
import { log } from '../../lib/log.js';
import { SizedMap } from '../../lib/memo.js';

/** `sha256:` and 64 lowercase hex digits: the digest form SEP-2640 puts in manifests. */
export const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;

export const fileKey = (digest: string): string => `skills/files/${digest.slice('sha256:'.length)}`;

/** Most digests one check looks at (`files/missing`, and a publish's), in the writer's record of uploads (skill-files-table.ts). */
export const MAX_DIGESTS = 10_000;

/** Kept beside the bytes, so a publish can compare a declared size without reading them. */
interface FileMeta {
  size?: number;
}

export async function digestOf(bytes: Uint8Array): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return `sha256:${Array.from(d, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * Small files kept per isolate, 16 MiB of them at most (256 files of the largest kept would be half
 * the isolate); anything larger is read from KV (or the edge cache) each time.
 */
const MEMO_FILE_BYTES = 256 * 1024;
const MEMO_TOTAL_BYTES = 16 * 1024 * 1024;
const memo = new SizedMap<string, Uint8Array>(256, MEMO_TOTAL_BYTES, (b) => b.byteLength);

/** A file's bytes, or undefined when KV has no such digest. */
export async function readSkillFile(kv: KVNamespace, digest: string): Promise<Uint8Array | undefined> {
  const known = memo.get(digest);
  if (known) return known;
  const buf = await kv.get(fileKey(digest), 'arrayBuffer');
  if (!buf) return undefined;
  const bytes = new Uint8Array(buf);
  keepSkillFile(digest, bytes);
  return bytes;
}

/** Bytes that do not hash to the digest they came under: the sender's mistake, not a storage failure. */
export class DigestMismatchError extends Error {}

/** Stores bytes under their digest; refuses bytes that do not match it. Idempotent. */
export async function writeSkillFile(kv: KVNamespace, digest: string, bytes: Uint8Array): Promise<void> {
  if (!DIGEST_PATTERN.test(digest) || (await digestOf(bytes)) !== digest)
    throw new DigestMismatchError(`skill file bytes do not match ${digest.slice(0, 80)}`);
  await kv.put(fileKey(digest), bytes, { metadata: { size: bytes.byteLength } satisfies FileMeta });
}

/** A file's bytes as KV streams them, or undefined when it has none: a download never holds a whole file. */
export async function streamSkillFile(kv: KVNamespace, digest: string): Promise<ReadableStream | undefined> {
  return (await kv.get(fileKey(digest), 'stream')) ?? undefined;
}

/**
 * Each digest's stored size in bytes, undefined when KV has none: a publish refuses a record
 * whose declared size differs, since the size limits, resources/list and resources/read trust it.
 */
export async function storedSizes(
  kv: KVNamespace,
  digests: readonly string[],
): Promise<Map<string, number | undefined>> {
  const unique = [...new Set(digests)];
  const sizes = await Promise.all(unique.map(async (d) => memo.get(d)?.byteLength ?? sizeInKv(kv, d)));
  return new Map(unique.map((d, i) => [d, sizes[i]]));
}

async function sizeInKv(kv: KVNamespace, digest: string): Promise<number | undefined> {
  const { value, metadata } = await kv.getWithMetadata<FileMeta>(fileKey(digest), 'stream');
  if (!value) return undefined;
  if (typeof metadata?.size === 'number') {
    await value.cancel();
    return metadata.size;
  }
  // Uploaded before the size was kept beside it: counted, a chunk at a time, then kept, so once is enough.
  const reader = (value as ReadableStream<Uint8Array>).getReader();
  let size = 0;
  for (let r = await reader.read(); !r.done; r = await reader.read()) size += r.value.byteLength;
  await keepSize(kv, digest, size);
  return size;
}

/**
 * Stores a file again with its size beside it: the same bytes under the same digest (streamed from KV
 * to KV, never held), so nothing a reader sees changes. A failure costs only a count at the next publish.
 */
async function keepSize(kv: KVNamespace, digest: string, size: number): Promise<void> {
  try {
    const again = await kv.get(fileKey(digest), 'stream');
    if (again) await kv.put(fileKey(digest), again, { metadata: { size } satisfies FileMeta });
  } catch (e) {
    log.warn('skill file size not kept', { digest, error: e instanceof Error ? e.message : String(e) });
  }
}

/** The bytes this isolate already holds for a digest: no I/O (the serving path asks before the edge cache). */
export const knownSkillFile = (digest: string): Uint8Array | undefined => memo.get(digest);

/** Keeps bytes read from elsewhere (the edge cache) as `readSkillFile` keeps what it reads. */
export function keepSkillFile(digest: string, bytes: Uint8Array): void {
  // Small files only: an isolate's memory is shared by every request it serves.
  if (bytes.byteLength <= MEMO_FILE_BYTES) memo.set(digest, bytes);
}
