/**
 * The admin API's request bodies: JSON only, capped in size and depth, and
 * every way one can be wrong answered with a clear 4xx.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../env.js';
import { readCapped } from '../lib/body.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../lib/json.js';
import { ApiError } from './api-error.js';
import { headerOf } from './scope.js';

/** Largest admin body. */
export const MAX_ADMIN_BODY = 5 * 1024 * 1024;

/** Most prompts in one request; a larger set is published in parts (admin-uploads.ts). */
export const MAX_PUBLISH_PROMPTS = 2_000;

/** Strict, as /mcp is: a byte that is not UTF-8 must not be stored as U+FFFD in a prompt's text. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** `hint`: what to do instead, said when the body is too large. */
export async function readJson(c: Context<AppEnv>, hint?: string): Promise<unknown> {
  if (!/^application\/json\s*(;|$)/i.test(headerOf(c, 'content-type') ?? ''))
    throw new ApiError(415, 'unsupported_media_type', 'Send application/json');
  const tooLarge = () =>
    new ApiError(413, 'too_large', `Body over ${MAX_ADMIN_BODY} bytes${hint === undefined ? '' : `; ${hint}`}`);
  if (Number(headerOf(c, 'content-length') ?? 0) > MAX_ADMIN_BODY) throw tooLarge();
  const body = c.req.raw.body as ReadableStream<Uint8Array> | null;
  let bytes: Uint8Array = new Uint8Array();
  try {
    if (body) bytes = await readCapped(body, MAX_ADMIN_BODY, tooLarge);
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw new ApiError(400, 'invalid_json', 'The body could not be read in full');
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ApiError(400, 'invalid_json', 'The body is not valid UTF-8');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'invalid_json', 'Body is not valid JSON');
  }
  if (nestedDeeperThan(value, MAX_JSON_DEPTH))
    throw new ApiError(400, 'invalid_json', `Body nests deeper than ${MAX_JSON_DEPTH} levels`);
  return value;
}

const IN_PARTS = 'publish a larger set in parts through /admin/uploads (the CLI does)';

/** A publish body, `{"prompts": [...]}`, of at most MAX_PUBLISH_PROMPTS prompts. */
export async function readSet(c: Context<AppEnv>, hint = IN_PARTS): Promise<unknown[]> {
  const body = (await readJson(c, hint)) as { prompts?: unknown };
  if (!body || typeof body !== 'object' || !Array.isArray(body.prompts))
    throw new ApiError(400, 'invalid_body', 'Body must be {"prompts": [...]}');
  if (body.prompts.length > MAX_PUBLISH_PROMPTS)
    throw new ApiError(413, 'too_many', `At most ${MAX_PUBLISH_PROMPTS} prompts per request; ${hint}`);
  return body.prompts as unknown[];
}
