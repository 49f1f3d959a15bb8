/**
 * How the admin API answers a write (prompts and skills alike): the writer's result as JSON, a
 * refused write as 422 with every issue, an unknown name as 404. Query flags read one way.
 */
import type { Context } from 'hono';
import type { WriteResult } from '../catalog/catalog-writer.js';
import type { AppEnv } from '../env.js';
import { log } from '../lib/log.js';
import { ApiError } from './api-error.js';

export const flag = (c: Context<AppEnv>, key: string) =>
  ['1', 'true', 'yes'].includes((c.req.query(key) ?? '').toLowerCase());

/** `noun`: what was refused, in the error code (`invalid_prompts`, `invalid_skills`). */
export function answer(c: Context<AppEnv>, r: WriteResult, noun = 'prompts') {
  if (r.ok) {
    if (!r.dryRun)
      log.info('catalog written', { generation: r.generation, ...r.diff, unchanged: r.diff.unchanged.length });
    return c.json(r);
  }
  if (r.reason === 'invalid')
    throw new ApiError(422, `invalid_${noun}`, `${r.issues.length} problem(s); nothing was written`, r.issues);
  if (r.reason === 'too_large') throw new ApiError(413, 'catalog_too_large', r.message);
  throw new ApiError(404, 'not_found', r.message);
}
