/**
 * How a prompt set is cut to fit the gateway's per-request limits (src/routes/admin-json.ts:
 * 2,000 prompts and 5 MiB a request). A set that fits goes in one publish; a larger one in
 * parts through /admin/uploads, published as one change all the same.
 */
import type { PromptRecord } from '../src/catalog/types.js';

/** Per part: the gateway's limits, with room left in bytes for the `{"prompts":[…]}` around them. */
export const PART_PROMPTS = 2_000;
export const PART_BYTES = 5 * 1024 * 1024 - 64 * 1024;

/** The set in order, in as few parts as fit; one part when the whole set does. */
export function partsOf(
  records: readonly PromptRecord[],
  maxPrompts = PART_PROMPTS,
  maxBytes = PART_BYTES,
): PromptRecord[][] {
  const parts: PromptRecord[][] = [[]];
  let bytes = 0;
  for (const r of records) {
    // The comma between two records counts, too.
    const size = Buffer.byteLength(JSON.stringify(r)) + 1;
    const part = parts.at(-1)!;
    if (part.length > 0 && (part.length >= maxPrompts || bytes + size > maxBytes)) {
      parts.push([r]);
      bytes = size;
    } else {
      part.push(r);
      bytes += size;
    }
  }
  return parts;
}
