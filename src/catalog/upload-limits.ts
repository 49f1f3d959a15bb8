/**
 * The limits on staged uploads (uploads-table.ts keeps the uploads): how long one stays open, how
 * many may be open at once, and how much one may hold, each with the refusal that names it. They
 * stand apart from the storage so every bound on what uploads may pile up in the writer's SQLite,
 * and what a publisher is told when it meets one, reads in one place.
 */
import { MAX_CATALOG_BYTES } from './versioned-writes.js';

/** How long an upload stays open after it was opened, in ms. */
export const UPLOAD_TTL_MS = 60 * 60 * 1000;
/** Uploads open at once: enough for a few publishers, too few to fill the writer's storage. */
export const MAX_OPEN_UPLOADS = 8;
/**
 * Uploads one principal may hold open: a publisher whose runs crash (each leaving its upload for
 * the hour) fills its own share, never every slot the other publishers need.
 */
export const MAX_OPEN_PER_OPENER = 4;
/** Prompts in one upload: its publish writes each in one transaction, inside the writer's lock. */
export const MAX_UPLOAD_PROMPTS = 20_000;

type Refusal<R extends string> = { ok: false; reason: R; message: string };

/** Why no upload may be opened while `open` are, `mine` of them by the opener; undefined when one may. */
export function tooManyOpen(open: number, mine: number): Refusal<'too_many_uploads'> | undefined {
  const full =
    mine >= MAX_OPEN_PER_OPENER
      ? `${mine} uploads you opened are open (at most ${MAX_OPEN_PER_OPENER} per principal)`
      : open >= MAX_OPEN_UPLOADS
        ? `${open} uploads are open (at most ${MAX_OPEN_UPLOADS})`
        : undefined;
  if (!full) return undefined;
  return {
    ok: false,
    reason: 'too_many_uploads',
    message: `${full}; publish or delete one (GET /admin/uploads lists them), or wait for one to expire`,
  };
}

/** Why an upload may not hold `prompts` prompts; undefined when it may. */
export function tooManyPrompts(prompts: number): Refusal<'too_many_prompts'> | undefined {
  if (prompts <= MAX_UPLOAD_PROMPTS) return undefined;
  return {
    ok: false,
    reason: 'too_many_prompts',
    message: `The upload would hold ${prompts} prompts, over the ${MAX_UPLOAD_PROMPTS} one upload may; nothing was added`,
  };
}

/** Why an upload may not hold `bytes` bytes of prompts; undefined when it may. */
export function tooLarge(bytes: number): Refusal<'too_large'> | undefined {
  if (bytes <= MAX_CATALOG_BYTES) return undefined;
  return {
    ok: false,
    reason: 'too_large',
    message: `The upload would hold about ${bytes} bytes, over the ${MAX_CATALOG_BYTES}-byte catalog limit; nothing was added`,
  };
}
